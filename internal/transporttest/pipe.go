// Package transporttest holds in-memory transport.Conns for tests: no
// process, no pipes, and a way to deliver what only a real server could
// send (noise, oversize reports, stderr lines); a Hold that keeps chosen
// frames from the peer until a test lets them go; and the error a server's
// exit ends a connection with. Tests above the session (the UI's) find
// what they need of the transport here and never import it. It is no part
// of transport's API.
package transporttest

import (
	"sync"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// Pipe returns two connected in-memory Conns. Frames sent on one are
// received, in order, on the other. Sends never block: each direction has
// an unbounded queue, so a test can send before the other side reads.
func Pipe() (a, b *End) {
	ab, ba := newQueue(), newQueue()
	return &End{in: ba, out: ab}, &End{in: ab, out: ba}
}

// End is one end of a Pipe: a transport.Conn.
type End struct {
	in, out *queue
	once    sync.Once
}

// Send implements transport.Conn.
func (p *End) Send(frame []byte) error {
	return p.out.push(transport.Message{Kind: wire.KindFrame, Data: append([]byte(nil), frame...)})
}

// Recv implements transport.Conn.
func (p *End) Recv() (transport.Message, error) { return p.in.pop() }

// Close implements transport.Conn. The peer's Recv returns
// transport.ErrClosed once it has read what was already queued.
func (p *End) Close() error {
	p.once.Do(func() {
		p.in.close(transport.ErrClosed)
		p.out.close(transport.ErrClosed)
	})
	return nil
}

// Inject queues an item of any kind (noise, a stderr line, a frame) for
// this end's Recv, as if the peer had sent it: after what the peer
// already sent.
func (p *End) Inject(kind wire.Kind, data []byte) error {
	return p.in.push(transport.Message{Kind: kind, Data: data, Size: len(data)})
}

// InjectMessage queues m whole (its Why, Tail or ID included) for this
// end's Recv, as if the peer's transport had produced it.
func (p *End) InjectMessage(m transport.Message) error { return p.in.push(m) }

// queue is an unbounded FIFO of Messages with a blocking pop.
type queue struct {
	mu    sync.Mutex
	cond  sync.Cond
	items []transport.Message
	head  int
	err   error
}

func newQueue() *queue {
	q := &queue{}
	q.cond.L = &q.mu
	return q
}

func (q *queue) push(m transport.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.items = append(q.items, m)
	q.cond.Signal()
	return nil
}

func (q *queue) pop() (transport.Message, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && q.err == nil {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return transport.Message{}, q.err
	}
	m := q.items[q.head]
	q.items[q.head] = transport.Message{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return m, nil
}

func (q *queue) close(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.cond.Broadcast()
	q.mu.Unlock()
}

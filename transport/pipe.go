package transport

import (
	"sync"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Pipe returns two connected in-memory Conns, for tests and for running
// the demo server in-process. Frames sent on one are received, in order,
// on the other. Sends never block: each direction has an unbounded queue,
// so a test can send before the other side reads.
func Pipe() (a, b Conn) {
	ab, ba := newQueue(), newQueue()
	return &pipeEnd{in: ba, out: ab}, &pipeEnd{in: ab, out: ba}
}

type pipeEnd struct {
	in, out *queue
	once    sync.Once
}

// Send implements Conn.
func (p *pipeEnd) Send(frame []byte) error {
	return p.out.push(Message{Kind: wire.KindFrame, Data: append([]byte(nil), frame...)})
}

// Recv implements Conn.
func (p *pipeEnd) Recv() (Message, error) { return p.in.pop() }

// Close implements Conn. The peer's Recv returns ErrClosed once it has
// read what was already queued.
func (p *pipeEnd) Close() error {
	p.once.Do(func() {
		p.in.close(ErrClosed)
		p.out.close(ErrClosed)
	})
	return nil
}

// Inject queues a Message for this end's Recv as if the peer had sent it:
// tests use it to deliver noise, oversize reports and stderr lines.
func Inject(c Conn, m Message) error {
	p, ok := c.(*pipeEnd)
	if !ok {
		return ErrClosed
	}
	return p.in.push(m)
}

// queue is an unbounded FIFO of Messages with a blocking pop.
type queue struct {
	mu    sync.Mutex
	cond  sync.Cond
	items []Message
	head  int
	err   error
}

func newQueue() *queue {
	q := &queue{}
	q.cond.L = &q.mu
	return q
}

func (q *queue) push(m Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.items = append(q.items, m)
	q.cond.Signal()
	return nil
}

func (q *queue) pop() (Message, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && q.err == nil {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return Message{}, q.err
	}
	m := q.items[q.head]
	q.items[q.head] = Message{}
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

package transport

import (
	"sync"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// inbox is the inbound queue of a transport with many readers (one
// goroutine per HTTP response): they push, Recv takes. Its bound is the
// back-pressure: a reader waits while the session is behind.
type inbox struct {
	ch     chan Message
	done   chan struct{} // closed by close: our own Close
	failed chan struct{} // closed by fail: the connection is dead

	mu       sync.Mutex
	err      error
	isDone   bool
	isFailed bool
}

func newInbox() *inbox {
	return &inbox{ch: make(chan Message, 256), done: make(chan struct{}), failed: make(chan struct{})}
}

// push queues m and reports whether it was queued; false once the
// connection was closed or failed.
func (q *inbox) push(m Message) bool {
	// A dead connection queues nothing more: a busy stream must not keep
	// Recv delivering (and the pending requests waiting) past the error,
	// as a select with room in ch would half the time.
	select {
	case <-q.done:
		return false
	case <-q.failed:
		return false
	default:
	}
	select {
	case q.ch <- m:
		return true
	case <-q.done:
		return false
	case <-q.failed:
		return false
	}
}

// fact queues an HTTP fact for the wire log.
func (q *inbox) fact(text string) { q.push(Message{Kind: wire.KindHTTP, Data: []byte(text)}) }

// tryFact queues an HTTP fact if there is room, for paths (Close) where
// nobody may be reading.
func (q *inbox) tryFact(text string) {
	select {
	case q.ch <- Message{Kind: wire.KindHTTP, Data: []byte(text)}:
	default:
	}
}

// requestError fails the request with raw JSON id at once.
func (q *inbox) requestError(id []byte, why string) {
	q.push(Message{Kind: wire.KindRequestError, ID: id, Data: []byte(why)})
}

// fail ends the connection with err, which Recv returns once the
// messages queued before it were taken. The first error wins.
func (q *inbox) fail(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.isFailed || q.isDone {
		return
	}
	q.err, q.isFailed = err, true
	close(q.failed)
}

// close ends the connection from our side: Recv returns ErrClosed.
func (q *inbox) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.isDone {
		q.isDone = true
		close(q.done)
	}
}

// recv takes the next Message, or says why there will be none.
func (q *inbox) recv() (Message, error) {
	select {
	case m := <-q.ch:
		return m, nil
	case <-q.done:
		return Message{}, ErrClosed
	default:
	}
	select {
	case m := <-q.ch:
		return m, nil
	case <-q.done:
		return Message{}, ErrClosed
	case <-q.failed:
		select {
		case m := <-q.ch:
			return m, nil
		default:
		}
		q.mu.Lock()
		defer q.mu.Unlock()
		return Message{}, q.err
	}
}

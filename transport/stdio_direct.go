package transport

import (
	"io"
	"sync/atomic"
	"time"
)

// reliefAfter is how long a direct receiver may hold a reader before
// another goroutine takes over reading its pipe (see directReader):
// far longer than handling a frame takes, so that the relief is the
// exception, and short beside the waits it prevents (a server blocked on
// its full pipe waits for as long as nobody reads).
const reliefAfter = 50 * time.Millisecond

// ReceiveDirect implements DirectReceiver: stdout's items go to f on the
// stdout reader, stderr's lines on the stderr reader, unless an item
// already went to Recv. Both, not stdout alone, so that they reach f in
// the order they reached Recv's channel before: each reader hands over
// what it read as soon as it can, and the receiver takes one at a time.
// The end of the stream still comes through Recv, after f returned for
// the last item: the stdout reader puts ErrOutputClosed only once it is
// done, and the exit is reported once both readers are done.
func (s *Stdio) ReceiveDirect(f func(Message)) bool {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	if s.routed || s.direct != nil || f == nil {
		return false
	}
	s.direct = f
	return true
}

// route decides, at the first item of stdout or stderr, where both go
// for good: to the direct receiver if there is one by then, else (nil) to
// Recv.
func (s *Stdio) route() func(Message) {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	s.routed = true
	return s.direct
}

// directReader hands the items of one of the server's pipes to the
// direct receiver on the goroutine that read them.
//
// A receiver may block: the session answers a server's ping on it, and
// that write waits while the server, blocked on its own full stdout,
// reads no stdin. With Recv the channel's buffer kept the server going;
// here, once the receiver has held the reader for reliefAfter, a relief
// goroutine takes over reading into a buffer of the same size (relay), and
// the reader hands on what it relays, in order. Once the reader is idle,
// waiting for the relay, the relief hands reading back with the item it
// read last: the hand-off per item lasts only while the receiver is slow.
type directReader struct {
	s *Stdio
	// next reads the pipe's next item; atEOF, if set, runs at its end
	// (stdout: ErrOutputClosed for a server that lives on).
	next  func() (Message, error)
	atEOF func()
	r     io.Reader
	f     func(Message)

	// handed is stored before the timer that starts the relief is armed
	// and loaded by the relief before it reads: the reader's last read
	// happens before the relief's first.
	handed atomic.Bool
	relay  chan Message
	// back takes the item with which the relief hands reading back. It
	// is unbuffered and the relief never waits on it: the hand-back
	// happens only while the reader waits, so with relay empty.
	back chan Message
	// relayErr ends the relief's reading; set before relay is closed.
	relayErr error
}

// run hands m and every later item to f until the pipe ends or Close.
func (d *directReader) run(m Message) {
	d.relay = make(chan Message, recvBuffer)
	d.back = make(chan Message)
	relief := time.AfterFunc(time.Hour, d.relieve)
	relief.Stop()
	defer relief.Stop()
	for {
		// As deliver: after Close nobody takes any more.
		if d.s.isClosed() {
			break
		}
		d.handed.Store(true)
		relief.Reset(reliefAfter)
		d.f(m)
		if !relief.Stop() {
			var back bool
			if m, back = d.fromRelay(); !back {
				return
			}
			continue
		}
		var err error
		if m, err = d.next(); err != nil {
			d.ended(err)
			return
		}
	}
	// Keep draining after Close: a server blocked on a full stdout could
	// not notice stdin EOF and exit politely.
	io.Copy(io.Discard, d.r)
}

// relieve reads the pipe into relay while the reader is held by f, until
// the reader is idle or the pipe ends.
func (d *directReader) relieve() {
	d.handed.Load()
	for {
		m, err := d.next()
		if err != nil {
			d.relayErr = err
			close(d.relay)
			return
		}
		select {
		case d.back <- m:
			return // the reader reads on from here
		default:
		}
		select {
		case d.relay <- m:
		case <-d.s.closed:
			io.Copy(io.Discard, d.r)
			d.relayErr = ErrClosed
			close(d.relay)
			return
		}
	}
}

// fromRelay hands on what the relief reads. It returns the item with
// which the relief handed reading back (back true), or ends the pipe as
// run does once the relief is done (back false).
func (d *directReader) fromRelay() (m Message, back bool) {
	for {
		select {
		case m := <-d.back:
			return m, true // the relief is gone; run checks Close
		case m, ok := <-d.relay:
			if !ok {
				d.ended(d.relayErr)
				return Message{}, false
			}
			if d.s.isClosed() {
				for range d.relay {
					// Let the relief finish draining.
				}
				return Message{}, false
			}
			d.f(m)
		}
	}
}

// ended ends the pipe once its last item was handed on.
func (d *directReader) ended(err error) {
	if err == io.EOF && d.atEOF != nil {
		d.atEOF()
	}
}

package transport

import (
	"io"
	"sync/atomic"
	"time"
)

// reliefAfter is how long a direct receiver may hold the stdout reader
// before another goroutine takes over reading stdout (see directReader):
// far longer than handling a frame takes, so that the relief is the
// exception, and short beside the waits it prevents (a server blocked on
// its full stdout waits for as long as nobody reads).
const reliefAfter = 50 * time.Millisecond

// ReceiveDirect implements DirectReceiver: stdout's items go to f on the
// stdout reader, unless one already went to Recv. The end of the stream
// still comes through Recv, after f returned for the last item: the
// reader puts ErrOutputClosed only once it is done, and the exit is
// reported once both readers are done.
func (s *Stdio) ReceiveDirect(f func(Message)) bool {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	if s.routed || s.direct != nil || f == nil {
		return false
	}
	s.direct = f
	return true
}

// route decides, at stdout's first item, where stdout goes for good: to
// the direct receiver if there is one by then, else (nil) to Recv.
func (s *Stdio) route() func(Message) {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	s.routed = true
	return s.direct
}

// directReader hands stdout's items to the direct receiver on the
// goroutine that read them.
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
	s  *Stdio
	fr *frameReader
	r  io.Reader
	f  func(Message)

	// handed is stored before the timer that starts the relief is armed
	// and loaded by the relief before it reads: the reader's last use of
	// fr happens before the relief's first.
	handed atomic.Bool
	relay  chan Message
	// back takes the item with which the relief hands reading back. It
	// is unbuffered and the relief never waits on it: the hand-back
	// happens only while the reader waits, so with relay empty.
	back chan Message
	// relayErr ends the relief's reading; set before relay is closed.
	relayErr error
}

// run hands m and every later item to f until stdout ends or Close.
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
		m, err = d.fr.next()
		if err == io.EOF {
			d.s.outputClosed()
			return
		}
		if err != nil {
			return
		}
	}
	// Keep draining after Close: a server blocked on a full stdout could
	// not notice stdin EOF and exit politely.
	io.Copy(io.Discard, d.r)
}

// relieve reads stdout into relay while the reader is held by f, until
// the reader is idle or stdout ends.
func (d *directReader) relieve() {
	d.handed.Load()
	for {
		m, err := d.fr.next()
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
// which the relief handed reading back (back true), or ends stdout as run
// does once the relief is done (back false).
func (d *directReader) fromRelay() (m Message, back bool) {
	for {
		select {
		case m := <-d.back:
			return m, true // the relief is gone; run checks Close
		case m, ok := <-d.relay:
			if !ok {
				if d.relayErr == io.EOF {
					d.s.outputClosed()
				}
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

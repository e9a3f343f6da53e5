package session

import (
	"sync"
	"time"
)

// Event is one thing that happened in a session. Events reach every
// Subscription in one order, the order the session decided them in.
type Event interface{ event() }

// Ref names a request in events: Seq is unique within the session (an
// incoming request may share an ID with an outgoing one); ID is the wire id.
type Ref struct {
	Seq      uint64
	ID       ID
	Incoming bool
}

// RequestStarted reports a request was sent, or one arrived from the peer.
type RequestStarted struct{ Info RequestInfo }

// ProgressUpdated reports notifications/progress for a request in flight.
type ProgressUpdated struct {
	Ref      Ref
	Progress Progress
}

// StateChanged reports a request moved to another state.
type StateChanged struct {
	Ref      Ref
	From, To State
	At       time.Time
	// Reason is the cancel or timeout reason, or the failure.
	Reason string
}

// CancelSent reports the cancellation of a request was written to the transport
// (or failed to be: Err). At is RequestInfo.CancelSentAt.
type CancelSent struct {
	Ref Ref
	At  time.Time
	Err error
	// Wire is what the cancellation did on the wire.
	Wire CancelWire
}

// CancelWire says what a cancellation did on the wire, which under
// Streamable HTTP --cancel-mode chooses and the protocol version gives
// meaning to. Both false: tasks/cancel, or nothing could be done.
type CancelWire struct {
	// StreamClosed: the request's own response stream was closed.
	StreamClosed bool
	// Notified: notifications/cancelled was written (or failed to be).
	Notified bool
	// ByStreamClose: the cancellation of protocol 2026-07-28 over
	// Streamable HTTP, ending the request's stream (StreamClosed says
	// whether it was still open) and sending nothing. Nothing more can
	// arrive for the request, so whether the server stopped cannot be
	// seen on the wire: its late traffic is not observable.
	ByStreamClose bool
}

// LateObservable reports whether traffic after this cancellation could
// reach us at all: not when the era's cancellation closed the stream.
func (w CancelWire) LateObservable() bool { return !w.ByStreamClose }

// LateArrived reports traffic for a request we had cancelled or that timed out.
// It is recorded, never delivered as a result.
type LateArrived struct {
	Ref  Ref
	Late LateFrame
}

// StrayArrived reports a response or progress for no request we know (or, for
// progress, for a request that already ended).
type StrayArrived struct {
	At   time.Time
	Kind LateKind
	// ID is the id the traffic names: the response's id, or the progress
	// token when it is a valid id. Zero when it names none.
	ID ID
	// Token is the progressToken of stray progress as JSON text, exactly
	// as the peer sent it (even when it is not a valid id); "" for a
	// response or a progress without one.
	Token string
	// Data is the start of the frame, at most MaxKept bytes, a copy;
	// Size is the frame's full length.
	Data []byte
	Size int
}

// DuplicateArrived reports a second response for a request that already had one.
type DuplicateArrived struct {
	Ref  Ref
	At   time.Time
	Data []byte // at most MaxKept bytes of the frame
	Size int    // the frame's full length
}

// NoiseCause says what kind of unusable line a NoiseArrived is.
type NoiseCause uint8

const (
	// NoiseNotJSON is a line that is not JSON, such as a log line.
	NoiseNotJSON NoiseCause = iota
	// NoiseNotJSONRPC is JSON that is not a JSON-RPC message.
	NoiseNotJSONRPC
	// NoiseOversize is a frame over the size limit.
	NoiseOversize
	// NoiseMalformed is a line that starts like a frame but cannot be
	// used: invalid UTF-8, trailing bytes, too deep, cut short.
	NoiseMalformed
	// NoiseBOM is a UTF-8 byte-order mark that was stripped.
	NoiseBOM
)

// NoiseArrived reports a line that was not a usable JSON-RPC message, or a frame
// over the size limit (Oversize holds its length).
type NoiseArrived struct {
	At time.Time
	// Line is the start of the line, at most MaxKept bytes, a copy.
	Line     []byte
	Oversize int
	// Size is the line's full length.
	Size  int
	Cause NoiseCause
	// Why says what was wrong with it when it was JSON but not usable.
	Why string
}

// StderrLine reports one line the server wrote to stderr.
type StderrLine struct {
	At   time.Time
	Line string
}

// Closed reports the session ended; Err says why (nil after our own Close or a
// clean end of the peer's output). ByPeer is true unless we closed it.
type Closed struct {
	At     time.Time
	Err    error
	ByPeer bool
}

func (RequestStarted) event()   {}
func (ProgressUpdated) event()  {}
func (StateChanged) event()     {}
func (CancelSent) event()       {}
func (LateArrived) event()      {}
func (StrayArrived) event()     {}
func (DuplicateArrived) event() {}
func (NoiseArrived) event()     {}
func (StderrLine) event()       {}
func (Closed) event()           {}

// Subscription receives a session's events on C, in order, none dropped:
// the session never blocks on a slow reader; events wait in an unbounded
// queue instead. C is closed after the Closed event, or by Close.
type Subscription struct {
	C <-chan Event

	c      chan Event
	keep   func(Event) bool // nil: every event
	mu     sync.Mutex
	cond   sync.Cond
	queue  []Event
	ended  bool // no more pushes
	closed bool // reader gave up
	quit   chan struct{}
	once   sync.Once
	done   chan struct{}
}

func newSubscription() *Subscription {
	s := &Subscription{c: make(chan Event, 64), quit: make(chan struct{}), done: make(chan struct{})}
	s.C = s.c
	s.cond.L = &s.mu
	go s.pump()
	return s
}

// Close stops delivery; events not yet read are dropped.
func (s *Subscription) Close() {
	s.once.Do(func() { close(s.quit) })
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	s.cond.Broadcast()
	s.mu.Unlock()
	<-s.done
}

// Pending is how many events wait for the reader, beyond C's buffer.
func (s *Subscription) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

func (s *Subscription) push(e Event) {
	if s.keep != nil && !s.keep(e) {
		if _, closed := e.(Closed); !closed {
			return
		}
	}
	s.mu.Lock()
	if !s.closed && !s.ended {
		s.queue = append(s.queue, e)
		s.cond.Signal()
	}
	s.mu.Unlock()
}

func (s *Subscription) end() {
	s.mu.Lock()
	s.ended = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *Subscription) pump() {
	defer close(s.done)
	defer close(s.c)
	var batch []Event
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.ended && !s.closed {
			s.cond.Wait()
		}
		if s.closed || (len(s.queue) == 0 && s.ended) {
			s.mu.Unlock()
			return
		}
		batch, s.queue = s.queue, batch[:0]
		s.mu.Unlock()
		for i, e := range batch {
			select {
			case s.c <- e:
			case <-s.quit:
				return
			}
			batch[i] = nil
		}
	}
}

func (s *Subscription) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

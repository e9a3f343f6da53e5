package transport

import (
	"sync"
	"time"
)

// Direction says which way a tapped item went.
type Direction uint8

const (
	// Out is a frame we sent.
	Out Direction = iota
	// In is an item we received: a frame, noise, an oversize report or a
	// stderr line (see Record.Kind).
	In
)

// String implements fmt.Stringer.
func (d Direction) String() string {
	if d == Out {
		return "out"
	}
	return "in"
}

// Record is one item that passed a Tap.
type Record struct {
	// At carries Go's monotonic clock reading; Since(start) is exact even
	// if the wall clock jumps.
	At   time.Time
	Dir  Direction
	Kind Kind
	// Data must not be modified by observers; it is shared with the
	// session and with other observers. Observers may keep it: senders
	// never reuse a frame's buffer.
	Data []byte
	Size int
}

// Observer sees every Record of a Tap. It is called synchronously, in
// wire order per direction, so it must be quick and must not block:
// buffer and hand off to a goroutine for slow work.
type Observer func(Record)

// Tap wraps a Conn so that every frame in or out, every noise and stderr
// line, reaches its observers with a monotonic timestamp. The wire log,
// transcripts and late-traffic timing all come from this one place.
type Tap struct {
	Conn
	start time.Time

	mu        sync.Mutex
	observers []Observer

	// sendMu keeps the order of Out records equal to the order of writes.
	sendMu sync.Mutex
}

// NewTap wraps c. Start is the zero point for Since.
func NewTap(c Conn) *Tap {
	return &Tap{Conn: c, start: time.Now()}
}

// Start is when the tap was made; transcripts count time from here.
func (t *Tap) Start() time.Time { return t.start }

// Observe adds an observer. Items that passed before it was added are not
// replayed.
func (t *Tap) Observe(o Observer) {
	t.mu.Lock()
	t.observers = append(t.observers, o)
	t.mu.Unlock()
}

// Send implements Conn. The record is taken before the write so that a
// response the peer sends at once never appears to precede its request.
func (t *Tap) Send(frame []byte) error {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	t.emit(Record{At: time.Now(), Dir: Out, Kind: KindFrame, Data: frame, Size: len(frame)})
	return t.Conn.Send(frame)
}

// Recv implements Conn.
func (t *Tap) Recv() (Message, error) {
	m, err := t.Conn.Recv()
	if err == nil {
		t.emit(Record{At: time.Now(), Dir: In, Kind: m.Kind, Data: m.Data, Size: m.Size})
	}
	return m, err
}

// CloseRequestStream forwards to the wrapped transport when it has
// per-request streams.
func (t *Tap) CloseRequestStream(id []byte) (bool, error) {
	if c, ok := t.Conn.(RequestStreamCloser); ok {
		return c.CloseRequestStream(id)
	}
	return false, nil
}

// StderrTail forwards to the wrapped transport when it keeps stderr.
func (t *Tap) StderrTail(n int) []string {
	if c, ok := t.Conn.(StderrTail); ok {
		return c.StderrTail(n)
	}
	return nil
}

func (t *Tap) emit(r Record) {
	t.mu.Lock()
	obs := t.observers
	t.mu.Unlock()
	for _, o := range obs {
		o(r)
	}
}

package transport

import (
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Observer sees every Record of a Tap. It is called synchronously, in
// wire order per direction, so it must be quick and must not block:
// buffer and hand off to a goroutine for slow work.
type Observer func(wire.Record)

// Tap wraps a Conn so that every frame in or out, every noise and stderr
// line, reaches its observers with a monotonic timestamp. The wire log,
// transcripts and late-traffic timing all come from this one place.
type Tap struct {
	Conn
	now   func() time.Time
	start time.Time

	mu        sync.Mutex
	observers []Observer

	// sendMu keeps the order of Out records equal to the order of writes.
	sendMu sync.Mutex
}

// NewTap wraps c, stamping records with time.Now.
func NewTap(c Conn) *Tap { return NewTapWithClock(c, time.Now) }

// NewTapWithClock wraps c, stamping records with now: give it the
// session's clock, so the wire log, transcripts and the session's late
// timing read one source of time.
func NewTapWithClock(c Conn, now func() time.Time) *Tap {
	return &Tap{Conn: c, now: now, start: now()}
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
	t.emit(wire.Record{At: t.now(), Dir: wire.Out, Kind: wire.KindFrame, Data: frame, Size: len(frame)})
	return t.Conn.Send(frame)
}

// Recv implements Conn.
func (t *Tap) Recv() (Message, error) {
	m, err := t.Conn.Recv()
	if err == nil {
		t.emit(wire.Record{At: t.now(), Dir: wire.In, Kind: m.Kind, Data: m.Data, Size: m.Size, Why: m.Why})
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

func (t *Tap) emit(r wire.Record) {
	t.mu.Lock()
	obs := t.observers
	t.mu.Unlock()
	for _, o := range obs {
		o(r)
	}
}

package transport

import (
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Observer sees every Record of a Tap. Records reach observers one at a
// time, in the order of their timestamps, so an observer must be quick and
// must not block: buffer and hand off to a goroutine for slow work.
type Observer func(wire.Record)

// Tap wraps a Conn so that every frame in or out, every noise and stderr
// line, reaches its observers with a monotonic timestamp. The wire log,
// transcripts and late-traffic timing all come from this one place: a
// Message carries the time on its record (Message.At), and SendOutgoing
// returns it, so the session times late traffic from the very readings
// the wire log and transcripts show.
//
// A frame we send is stamped when the wrapped Conn's Send returns: when it
// was written. What arrives while a write is under way waits for it (up to
// writeWait), so that a response the peer sends at once never appears
// before its request; a write that takes longer is one the peer is not
// reading, so nothing that arrives can answer it.
type Tap struct {
	Conn
	out   Sender // Conn's, once
	now   func() time.Time
	start time.Time

	obsMu     sync.Mutex
	observers []Observer

	// sendMu keeps the order of Out records equal to the order of writes.
	sendMu sync.Mutex
	// orderMu makes stamping a record and handing it to the observers one
	// step, so that observers see records in the order of their stamps.
	orderMu sync.Mutex
	writing *write // under orderMu: the write under way, or nil
	// directMu passes direct items one at a time (see ReceiveDirect).
	directMu sync.Mutex
}

// write is one Send under way.
type write struct {
	done  chan struct{} // closed once its record was emitted
	stuck bool          // under Tap.orderMu: a Recv waited writeWait for it
}

// writeWait bounds how long an arriving item waits for a write under way.
// It is real time: it bounds a wait on the operating system, whatever the
// clock the records are stamped with.
const writeWait = 100 * time.Millisecond

// NewTap wraps c, stamping records with now. Give it the session's clock,
// so that the wire log, transcripts and the session's late timing read one
// source of time.
func NewTap(c Conn, now func() time.Time) *Tap {
	return &Tap{Conn: c, out: SenderOf(c), now: now, start: now()}
}

// Start is when the tap was made; transcripts count time from here.
func (t *Tap) Start() time.Time { return t.start }

// Observe adds an observer. Items that passed before it was added are not
// replayed.
func (t *Tap) Observe(o Observer) {
	t.obsMu.Lock()
	t.observers = append(t.observers, o)
	t.obsMu.Unlock()
}

// Send implements Conn.
func (t *Tap) Send(frame []byte) error {
	_, err := t.SendOutgoing(Outgoing{Frame: frame})
	return err
}

// SendOutgoing implements Sender: it writes o (through the wrapped Conn's
// SendOutgoing when it has one, so that what the sender knew goes along)
// and returns the time on its record, taken once the write returned.
func (t *Tap) SendOutgoing(o Outgoing) (time.Time, error) {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	w := &write{done: make(chan struct{})}
	t.orderMu.Lock()
	t.writing = w
	t.orderMu.Unlock()

	_, err := t.out.SendOutgoing(o)

	t.orderMu.Lock()
	defer t.orderMu.Unlock()
	r := t.emit(wire.Record{Dir: wire.Out, Kind: wire.KindFrame, Data: o.Frame, Size: len(o.Frame)})
	t.writing = nil
	close(w.done)
	return r.At, err
}

// Recv implements Conn. The Message carries the time on its record.
func (t *Tap) Recv() (Message, error) {
	m, err := t.Conn.Recv()
	if err != nil {
		return m, err
	}
	return t.took(m), nil
}

// ReceiveDirect implements DirectReceiver when the wrapped Conn does: what
// it hands over directly is recorded and stamped exactly as what Recv
// returns, on the goroutine that read it, before f sees it. Items from
// the Conn's readers pass one at a time, from their record to the end of
// f, so that f takes them in the order of their records, as Recv's one
// caller did.
func (t *Tap) ReceiveDirect(f func(Message)) bool {
	d, ok := t.Conn.(DirectReceiver)
	return ok && d.ReceiveDirect(func(m Message) {
		t.directMu.Lock()
		defer t.directMu.Unlock()
		f(t.took(m))
	})
}

// took records an inbound item and stamps it with its record's time.
func (t *Tap) took(m Message) Message {
	t.orderMu.Lock()
	if w := t.writing; w != nil && !w.stuck {
		// It may answer the frame being written: let that frame's record
		// go first. Never wait on the write itself for long: the peer
		// may be blocked until we read.
		t.orderMu.Unlock()
		timer := time.NewTimer(writeWait)
		select {
		case <-w.done:
		case <-timer.C:
		}
		timer.Stop()
		t.orderMu.Lock()
		if t.writing == w {
			w.stuck = true
		}
	}
	defer t.orderMu.Unlock()
	r := t.emit(wire.Record{Dir: wire.In, Kind: m.Kind, Data: m.Data, Size: m.Size, Why: m.Why})
	m.At = r.At
	return m
}

// CloseRequestStream forwards to the wrapped transport when it has
// per-request streams.
func (t *Tap) CloseRequestStream(id []byte) (bool, error) {
	if c, ok := t.Conn.(RequestStreamCloser); ok {
		return c.CloseRequestStream(id)
	}
	return false, nil
}

// HasRequestStreams implements RequestStreams for the wrapped transport.
func (t *Tap) HasRequestStreams() bool {
	c, ok := t.Conn.(RequestStreams)
	return ok && c.HasRequestStreams()
}

// StderrTail forwards to the wrapped transport when it keeps stderr.
func (t *Tap) StderrTail(n int) []string {
	if c, ok := t.Conn.(StderrTail); ok {
		return c.StderrTail(n)
	}
	return nil
}

// emit stamps r, hands it to every observer and returns it stamped.
// Callers hold t.orderMu.
func (t *Tap) emit(r wire.Record) wire.Record {
	t.obsMu.Lock()
	obs := t.observers
	t.obsMu.Unlock()
	r.At = t.now()
	for _, o := range obs {
		o(r)
	}
	return r
}

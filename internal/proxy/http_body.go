package proxy

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// recordingBody passes an upstream response body on and records the
// messages in it: an event stream's events, or a JSON body at its end.
// Gated (the proxy has a kill switch or faults), it passes an event
// stream on event by event and a JSON body whole, so that an answer can
// be held or a progress notification dropped; every byte it passes is
// as it came.
type recordingBody struct {
	rc      io.ReadCloser
	now     func() time.Time
	emit    func(wire.Record)
	session string // the host session's label, "" for none
	id      string // the request this answers, if the POST held one

	sse  *sseSplitter
	json bool
	buf  lineSplitter

	mu       sync.Mutex
	answered bool // the answer went on to the host
	holding  bool // the answer is held: its record does not count
	ended    bool

	// The kill switch: a killed request's body ends with the proxy's
	// answer (inject) in place of the upstream's.
	inflight *httpInflight
	killer   *httpKiller
	inject   []byte
	injected bool

	// Gated: bytes read and not yet a whole event, bytes for the host,
	// an answer held (its bytes wait on its fate), the upstream's end.
	gated     bool
	chunk     []byte
	pending   []byte
	out       []byte
	wait      chan bool
	waitBytes []byte
	upErr     error
}

func (b *recordingBody) Read(p []byte) (int, error) {
	for {
		switch {
		case len(b.out) > 0:
			n := copy(p, b.out)
			b.out = b.out[n:]
			return n, nil
		case b.injected:
			return b.readInjected(p)
		case b.wait != nil:
			b.awaitHeld()
		case b.gated && b.split(b.upErr != nil):
		case b.upErr != nil:
			return 0, b.upErr
		case !b.gated:
			return b.readThrough(p)
		default:
			b.readGated()
		}
	}
}

// readInjected hands the host the proxy's answer to a killed request.
func (b *recordingBody) readInjected(p []byte) (int, error) {
	if b.inject == nil {
		b.killer.silentUntilTheHostGivesUp(b.inflight)
		return 0, io.EOF
	}
	n := copy(p, b.inject)
	b.inject = b.inject[n:]
	if len(b.inject) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// readThrough passes the upstream's bytes on as they are read.
func (b *recordingBody) readThrough(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF && b.inflight.isKilled() {
		b.injectKill()
		return n, nil
	}
	if n > 0 {
		if b.sse != nil {
			b.sse.feed(p[:n])
		} else {
			if b.buf.emit == nil {
				b.buf = lineSplitter{dir: wire.In, now: b.now, emit: b.emitFrame}
			}
			b.buf.add(bytes.ReplaceAll(p[:n], []byte("\n"), []byte(" ")))
		}
	}
	if err == io.EOF {
		b.endOfBody()
	}
	return n, err
}

func (b *recordingBody) endOfBody() {
	b.mu.Lock()
	b.ended = true
	b.mu.Unlock()
	if b.json && b.buf.size > 0 {
		b.buf.end()
	}
}

func (b *recordingBody) injectKill() {
	b.injected = true
	b.inject = b.killer.killedAnswer(b.inflight, b.sse != nil)
}

// readGated reads the upstream into pending.
func (b *recordingBody) readGated() {
	if b.chunk == nil {
		b.chunk = make([]byte, 32<<10)
	}
	n, err := b.rc.Read(b.chunk)
	if err != nil && err != io.EOF && b.inflight.isKilled() {
		b.injectKill()
		return
	}
	b.pending = append(b.pending, b.chunk[:n]...)
	if err != nil {
		b.upErr = err
	}
	if len(b.pending) > maxHeldLine {
		// Too long to look at whole: it goes on unread, and so does the
		// rest of the body.
		b.gated = false
		b.pass(b.pending)
		b.pending = nil
	}
}

// pass records data as it goes on to the host, ungated.
func (b *recordingBody) pass(data []byte) {
	if b.sse != nil {
		b.sse.feed(data)
	} else {
		if b.buf.emit == nil {
			b.buf = lineSplitter{dir: wire.In, now: b.now, emit: b.emitFrame}
		}
		b.buf.add(bytes.ReplaceAll(data, []byte("\n"), []byte(" ")))
	}
	b.out = append(b.out, data...)
}

// split takes the whole events in pending (a JSON body once it ended;
// at the upstream's end, whatever is left) and says whether it made
// anything to do: bytes for the host, or a held answer.
func (b *recordingBody) split(final bool) bool {
	did := false
	for b.wait == nil && len(b.pending) > 0 {
		var ev []byte
		switch {
		case b.sse == nil && !final:
			return did
		case b.sse == nil:
			ev = b.pending
		default:
			i := wholeEventEnd(b.pending)
			if i < 0 && !final {
				return did
			}
			if i < 0 {
				i = len(b.pending)
			}
			ev = b.pending[:i]
		}
		b.pending = b.pending[len(ev):]
		b.gate(bytes.Clone(ev))
		did = true
	}
	if final && b.upErr == io.EOF && b.wait == nil && len(b.pending) == 0 && !b.ended {
		// The body's end, not the host closing it (an error): that is
		// for Close to record.
		b.endOfBody()
	}
	return did
}

// gate decides one event's (or JSON body's) fate, then records it.
func (b *recordingBody) gate(ev []byte) {
	data := ev
	if b.sse != nil {
		data = sseData(ev)
	}
	var drop bool
	var held chan bool
	if data != nil && b.killer != nil {
		drop, held = b.killer.fate(b.inflight, b.session, data)
	}
	if held != nil {
		b.mu.Lock()
		b.holding = true
		b.mu.Unlock()
	}
	if b.sse != nil {
		b.sse.feed(ev)
	} else {
		b.buf = lineSplitter{dir: wire.In, now: b.now, emit: b.emitFrame}
		b.buf.add(bytes.ReplaceAll(ev, []byte("\n"), []byte(" ")))
		b.buf.end()
	}
	switch {
	case drop:
	case held != nil:
		b.wait, b.waitBytes = held, ev
	default:
		b.out = append(b.out, ev...)
	}
}

// awaitHeld waits for a held answer's fate: released (on a key, a
// timer, or the host's cancel with --answer-after-cancel), dropped, or
// its request killed or given up by the host.
func (b *recordingBody) awaitHeld() {
	var pass bool
	select {
	case pass = <-b.wait:
	case <-b.inflight.done:
		b.killer.forget(b.inflight.ref)
		if b.inflight.isKilled() {
			// A held answer to a killed request is late: dropped, or
			// passed on before the proxy's answer with --forward-late.
			if b.killer.opts.ForwardLate {
				b.killer.event(b.session, EventReleased+b.id)
				b.out = append(b.out, b.waitBytes...)
			} else {
				b.killer.event(b.session, EventLateDropped+b.id)
			}
			b.injectKill()
		} else {
			// The host gave up on the response (closed the stream, or
			// left) while its answer was held: it never got it.
			b.closedByHost()
		}
	}
	if pass {
		b.out = append(b.out, b.waitBytes...)
		b.mu.Lock()
		b.answered = true
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.holding = false
	b.mu.Unlock()
	b.wait, b.waitBytes = nil, nil
}

// wholeEventEnd is the length of the first whole event in b (through the
// blank line that ends it), or -1.
func wholeEventEnd(b []byte) int {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		line := b[i : i+j]
		i += j + 1
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			return i
		}
	}
	return -1
}

// sseData is an event's data lines joined, or nil when it has none.
func sseData(ev []byte) []byte {
	var data []byte
	has := false
	for _, line := range bytes.Split(ev, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		if has {
			data = append(data, '\n')
		}
		has = true
		data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
	}
	return data
}

// emitFrame records a message from the upstream and notes whether it
// answered the request (unless the answer is held).
func (b *recordingBody) emitFrame(r wire.Record) {
	r.Session = b.session
	if b.id != "" && r.Kind == wire.KindFrame {
		for _, m := range messages(r.Data) {
			if m.Method == "" && compact(m.ID) == b.id {
				b.mu.Lock()
				if !b.holding {
					b.answered = true
				}
				b.mu.Unlock()
			}
		}
	}
	b.emit(r)
}

// Close ends the upstream's body, and with it its stream. Closed before
// its end and before the answer came, it is the host closing the stream
// of a pending request.
func (b *recordingBody) Close() error {
	b.closedByHost()
	return b.rc.Close()
}

// closedByHost records the host closing the response stream of a
// request whose answer it has not got, once.
func (b *recordingBody) closedByHost() {
	b.mu.Lock()
	cut := !b.ended && !b.answered && b.id != "" && !b.inflight.isKilled()
	b.ended = true
	b.mu.Unlock()
	if cut {
		b.emit(wire.Record{At: b.now(), Dir: wire.Out, Kind: wire.KindRelay, Data: []byte(EventStreamClosed + b.id), Session: b.session})
	}
}

package session

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// harness is a client Session whose peer is driven by hand: the test reads
// what the client wrote and writes the peer's frames itself.
type harness struct {
	t      *testing.T
	s      *Session
	peer   transport.Conn
	client transport.Conn // the client's own end, for transporttest.Inject
	clock  *clocktest.Clock
	events *collector
	wire   *wireLog
	gate   *gatedConn
	hold   *holdConn
}

type harnessOpts struct {
	// settle is Config.SettleWindow: 0 leaves New's default (1s) in
	// force, which the timing tests rely on.
	settle      time.Duration
	gated       bool
	maxFinished int
	// holdSend, when set, holds the client's holdSend-th write (see
	// holdConn); h.hold releases it.
	holdSend int
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	a, b := transporttest.Pipe()
	var conn transport.Conn = a
	h := &harness{t: t, peer: b, client: a, clock: clocktest.New()}
	if o.gated {
		h.gate = &gatedConn{Conn: a, open: make(chan struct{}, 1000)}
		conn = h.gate
	}
	tap := transport.NewTap(conn, h.clock.Now)
	h.wire = &wireLog{}
	tap.Observe(h.wire.observe)
	conn = tap
	if o.holdSend > 0 {
		h.hold = newHoldConn(tap, o.holdSend)
		conn = h.hold
	}
	h.s = New(conn, Config{Clock: h.clock, SettleWindow: o.settle, MaxFinished: o.maxFinished})
	h.events = collect(h.s.Subscribe())
	t.Cleanup(func() {
		if h.gate != nil {
			h.gate.release(1000)
		}
		if h.hold != nil {
			h.hold.let()
		}
		closeWithin(t, h.s)
		h.peer.Close()
	})
	return h
}

// snapshot returns every request in the table, oldest first.
func (s *Session) snapshot() []RequestInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RequestInfo, len(s.table.order))
	for i, r := range s.table.order {
		out[i] = r.snapshot()
	}
	return out
}

// readFrame returns the next frame the client wrote, decoded.
func (h *harness) readFrame() wireMessage {
	h.t.Helper()
	type res struct {
		m   transport.Message
		err error
	}
	ch := make(chan res, 1)
	go func() { m, err := h.peer.Recv(); ch <- res{m, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			h.t.Fatalf("peer recv: %v", r.err)
		}
		var m wireMessage
		if err := json.Unmarshal(r.m.Data, &m); err != nil {
			h.t.Fatalf("client wrote invalid JSON %q: %v", r.m.Data, err)
		}
		return m
	case <-time.After(hangGuard):
		h.t.Fatalf("the client wrote no frame within %v", hangGuard)
	}
	return wireMessage{}
}

// initialize runs the client's handshake, with result as the peer's
// answer, and returns the initialize request the client wrote too.
// Initialize runs in a goroutine and the peer's side here, so that
// readFrame fails the test only from the test's own goroutine.
func (h *harness) initialize(opts InitializeOptions, result string) (PeerInfo, wireMessage, error) {
	h.t.Helper()
	type res struct {
		peer PeerInfo
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		peer, err := h.s.Initialize(context.Background(), opts)
		ch <- res{peer, err}
	}()
	req := h.readFrame()
	if req.Method != "initialize" {
		h.t.Fatalf("first frame %q, want initialize", req.Method)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":%s}`, result)
	select {
	case r := <-ch:
		return r.peer, req, r.err
	case <-time.After(hangGuard):
		h.t.Fatalf("Initialize did not return within %v of its answer", hangGuard)
	}
	return PeerInfo{}, req, nil
}

func (h *harness) peerSend(format string, args ...any) {
	h.t.Helper()
	if err := h.peer.Send(fmt.Appendf(nil, format, args...)); err != nil {
		h.t.Fatal(err)
	}
}

// gatedConn holds each inbound message until the test releases it, so a
// test decides exactly when the client's reader sees a frame.
type gatedConn struct {
	transport.Conn
	open chan struct{}
}

func (g *gatedConn) Recv() (transport.Message, error) {
	m, err := g.Conn.Recv()
	if err == nil {
		select {
		case <-g.open:
		case <-time.After(hangGuard): // the test failed before it opened the gate
		}
	}
	return m, err
}

func (g *gatedConn) release(n int) {
	for range n {
		select {
		case g.open <- struct{}{}:
		default:
		}
	}
}

// wireLog keeps what passed the tap.
type wireLog struct {
	mu  sync.Mutex
	out [][]byte
}

func (w *wireLog) observe(r wire.Record) {
	if r.Dir == wire.Out {
		w.mu.Lock()
		w.out = append(w.out, append([]byte(nil), r.Data...))
		w.mu.Unlock()
	}
}

func (w *wireLog) written() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.out)
}

// collector records every event of a subscription.
type collector struct {
	mu     sync.Mutex
	cond   *sync.Cond
	events []Event
	done   bool
}

func collect(sub *Subscription) *collector {
	c := &collector{}
	c.cond = sync.NewCond(&c.mu)
	go func() {
		for e := range sub.C {
			c.mu.Lock()
			c.events = append(c.events, e)
			c.cond.Broadcast()
			c.mu.Unlock()
		}
		c.mu.Lock()
		c.done = true
		c.cond.Broadcast()
		c.mu.Unlock()
	}()
	return c
}

// waitFor blocks until an event matching pred arrived, and returns it. The
// deadline only guards against a hang; no test depends on timing.
func (c *collector) waitFor(t *testing.T, what string, pred func(Event) bool) Event {
	t.Helper()
	deadline := time.AfterFunc(10*time.Second, func() {
		c.mu.Lock()
		c.done = true
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer deadline.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := 0
	for {
		for ; seen < len(c.events); seen++ {
			if pred(c.events[seen]) {
				return c.events[seen]
			}
		}
		if c.done {
			t.Fatalf("no event %s; got %d events: %+v", what, len(c.events), c.events)
		}
		c.cond.Wait()
	}
}

func (c *collector) snapshot() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

func isState(seq uint64, to State) func(Event) bool {
	return func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Seq == seq && sc.To == to
	}
}

func isLate(seq uint64, kind LateKind) func(Event) bool {
	return func(e Event) bool {
		l, ok := e.(LateArrived)
		return ok && l.Ref.Seq == seq && l.Late.Kind == kind
	}
}

// hangGuard bounds every wait in these tests. It only turns a hang into a
// failure that says what did not happen; no test depends on timing.
const hangGuard = 10 * time.Second

// waitResult waits for c's final outcome.
func waitResult(t *testing.T, c *Call) (json.RawMessage, State, error) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(hangGuard):
		t.Fatalf("request %s (seq %d) did not end within %v", c.ID(), c.Seq(), hangGuard)
	}
	return c.Result()
}

// waitClosed waits for ch to be closed; what says what closing it means.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hangGuard):
		t.Fatalf("%s did not happen within %v", what, hangGuard)
	}
}

// closeWithin closes s and fails the test if Close has not returned
// within hangGuard: a handler deaf to its context, or a reader that never
// ends, would otherwise hang until go test's own timeout.
func closeWithin(t *testing.T, s *Session) {
	t.Helper()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		s.Close()
	}()
	waitClosed(t, closed, "Session.Close returning (reader ended, handlers' contexts cancelled)")
}

// waitUntil polls cond, for state another goroutine changes without an
// event to wait on.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v", what, hangGuard)
		}
		time.Sleep(time.Millisecond)
	}
}

// holdConn holds the n-th Send (1-based) until the test releases it; the
// others go straight through. It sits above the tap, whose lock would
// otherwise queue the other writes behind the held one.
type holdConn struct {
	transport.Conn
	n       int
	held    chan struct{} // closed when the n-th Send is waiting
	release chan struct{}

	once  sync.Once
	mu    sync.Mutex
	sends int
}

// let releases the held Send.
func (h *holdConn) let() { h.once.Do(func() { close(h.release) }) }

func newHoldConn(c transport.Conn, n int) *holdConn {
	return &holdConn{Conn: c, n: n, held: make(chan struct{}), release: make(chan struct{})}
}

func (h *holdConn) Send(frame []byte) error {
	h.wait()
	return h.Conn.Send(frame)
}

// SendOutgoing keeps the tap's stamp: a held frame reaches the
// transport, and is stamped, only when the test lets it go.
func (h *holdConn) SendOutgoing(o transport.Outgoing) (time.Time, error) {
	h.wait()
	return transport.SenderOf(h.Conn).SendOutgoing(o)
}

// wait holds the n-th send until the test releases it.
func (h *holdConn) wait() {
	h.mu.Lock()
	h.sends++
	hold := h.sends == h.n
	h.mu.Unlock()
	if hold {
		close(h.held)
		select {
		case <-h.release:
		case <-time.After(hangGuard): // the test failed before it let go
		}
	}
}

package session

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

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
	clock  *fakeClock
	events *collector
	wire   *wireLog
	gate   *gatedConn
}

type harnessOpts struct {
	settle time.Duration
	gated  bool
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	a, b := transporttest.Pipe()
	var conn transport.Conn = a
	h := &harness{t: t, peer: b, clock: newFakeClock()}
	if o.gated {
		h.gate = &gatedConn{Conn: a, open: make(chan struct{}, 1000)}
		conn = h.gate
	}
	tap := transport.NewTap(conn)
	h.wire = &wireLog{}
	tap.Observe(h.wire.observe)
	if o.settle == 0 {
		o.settle = time.Second
	}
	h.s = New(tap, Config{Clock: h.clock, SettleWindow: o.settle})
	h.events = collect(h.s.Subscribe())
	t.Cleanup(func() {
		if h.gate != nil {
			h.gate.release(1000)
		}
		h.s.Close()
		h.peer.Close()
	})
	return h
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
	case <-time.After(5 * time.Second):
		h.t.Fatal("client wrote nothing (hang guard)")
	}
	return wireMessage{}
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
		<-g.open
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

package ui

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// newHealthModel is a model on the fake server whose health check pings
// after interval of silence, its timer on the fake clock.
func newHealthModel(t *testing.T, interval time.Duration, w, h int) (*driver, *testConn) {
	t.Helper()
	clock := newFakeClock()
	tc := newTestConn(t, clock, defaultFakeTools())
	m := New(Options{Connect: tc.connector(), now: clock.Now, clock: clock, static: true, PingInterval: interval,
		frameInterval: time.Millisecond})
	d := newDriver(t, m, w, h)
	d.waitFor("tools listed and the health timer armed", func() bool {
		// Both answers in the wire log too: heard after the clock moves,
		// they would put the ping off.
		return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] == 2 && clock.Armed() == 1 && d.heardCount() == 2
	})
	return d, tc
}

// sentCount counts the frames mcpoke wrote with one of methods.
func (d *driver) sentCount(methods ...string) int {
	recs, _ := d.m.wire.Records()
	n := 0
	for _, r := range recs {
		for _, m := range methods {
			if r.Dir == wire.Out && r.Kind == wire.KindFrame && frameMethod(r.Data) == m {
				n++
			}
		}
	}
	return n
}

// heardCount counts the frames the server sent.
func (d *driver) heardCount() int {
	recs, _ := d.m.wire.Records()
	n := 0
	for _, r := range recs {
		if r.Dir == wire.In {
			n++
		}
	}
	return n
}

// advanceRearmed advances the clock by step and waits until the health timer
// fired and was armed again.
func (d *driver) advanceRearmed(tc *testConn, step time.Duration) {
	d.t.Helper()
	tc.clock.Advance(step)
	d.waitFor("the health timer armed again", func() bool { return tc.clock.Armed() == 1 })
}

// After the interval without a frame from the server, mcpoke pings it:
// the header shows the round trip, the wire log the frames, and the
// requests table no row.
func TestHealthPingAfterIdle(t *testing.T) {
	d, tc := newHealthModel(t, 30*time.Second, 140, 30)
	d.advanceRearmed(tc, 29*time.Second)
	if n := d.sentCount("ping"); n != 0 || d.m.health.waiting {
		t.Fatalf("%d pings after 29s of 30", n)
	}
	tc.clock.Advance(time.Second)
	d.waitScreen("● ready · ping 0.000ms")
	// The wire records come with the feed, maybe after the answer.
	d.waitFor("the ping in the wire log", func() bool { return d.sentCount("ping") == 1 })
	for _, r := range d.m.store.Rows {
		if r.Method == "ping" {
			t.Fatalf("the health ping has a row in the requests table: #%d", r.Seq)
		}
	}
	d.key("w")
	d.waitScreen("→ ping #3 (health check)", "← result #3 (health check)")
	if s := d.screen(); strings.Contains(s, "1 pending") {
		t.Fatalf("the header counts the health ping:\n%s", s)
	}
}

// An interval shorter than the wait for an answer is kept: after an
// answered ping the next goes one interval later, not when the wait for
// the first one's answer would have run out.
func TestHealthPingIntervalShorterThanItsTimeout(t *testing.T) {
	d, tc := newHealthModel(t, 2*time.Second, 140, 30)
	tc.clock.Advance(2 * time.Second)
	d.waitScreen("● ready · ping 0.000ms")
	d.waitFor("the first ping answered, the timer armed", func() bool {
		return d.sentCount("ping") == 1 && d.heardCount() == 3 && !d.m.health.waiting && tc.clock.Armed() == 1
	})
	tc.clock.Advance(2 * time.Second)
	d.waitFor("the second ping, one interval later", func() bool { return d.sentCount("ping") == 2 })
}

// While the server sends traffic no ping goes: the interval counts from
// the last frame heard.
func TestHealthPingNotWhileTrafficFlows(t *testing.T) {
	d, tc := newHealthModel(t, 30*time.Second, 140, 30)
	tc.clock.Advance(20 * time.Second)
	heard := d.heardCount()
	if _, err := tc.client.Do(context.Background(), "tools/list", nil, session.CallOptions{NoProgressToken: true}); err != nil {
		t.Fatal(err)
	}
	d.waitFor("the answer heard", func() bool { return d.heardCount() > heard })
	d.advanceRearmed(tc, 15*time.Second) // 35s from the start, 15s from the traffic
	if n := d.sentCount("ping"); n != 0 || d.m.health.waiting {
		t.Fatalf("pinged (%d on the wire) 15s after traffic", n)
	}
	tc.clock.Advance(15 * time.Second) // 30s of silence
	d.waitFor("the health ping", func() bool { return d.sentCount("ping") == 1 })
}

// A ping the server does not answer turns the header's health into a
// warning that counts on, kept even at 80 columns; the answer, however
// late, ends it.
func TestHealthPingUnanswered(t *testing.T) {
	d, tc := newHealthModel(t, 30*time.Second, 80, 24)
	hold := make(chan struct{})
	tc.server.mu.Lock()
	tc.server.pingHold = hold
	tc.server.mu.Unlock()
	d.advanceRearmed(tc, 30*time.Second)
	d.waitFor("the health ping", func() bool { return d.sentCount("ping") == 1 })
	d.advanceRearmed(tc, 10*time.Second)
	d.waitScreen("· memory · ● no answer to ping for 10s")
	d.advanceRearmed(tc, time.Second)
	d.waitScreen("no answer to ping for 11s")
	if n := d.sentCount("ping"); n != 1 {
		t.Fatalf("%d pings while one waits, want 1", n)
	}
	close(hold)
	d.waitFor("the late answer", func() bool { return !d.m.health.waiting })
	if s := d.screen(); strings.Contains(s, "no answer") {
		t.Fatalf("still warning after the answer:\n%s", s)
	}
	d.m.resize(140, 30)
	d.waitScreen("ping 11.0s")
}

// At 60 columns an unanswered ping still shows, in its short form.
func TestHealthWarningOnANarrowScreen(t *testing.T) {
	d, tc := newHealthModel(t, 30*time.Second, 60, 20)
	hold := make(chan struct{})
	defer close(hold)
	tc.server.mu.Lock()
	tc.server.pingHold = hold
	tc.server.mu.Unlock()
	d.advanceRearmed(tc, 30*time.Second)
	d.waitFor("the health ping", func() bool { return d.sentCount("ping") == 1 })
	d.advanceRearmed(tc, 12*time.Second)
	d.waitScreen("· memory · ● ping ✗ 12s")
}

// Protocol 2026-07-28 removed ping and names no replacement: no health
// check runs, and nothing is sent however long the server is silent.
func TestHealthPingNoneInModernEra(t *testing.T) {
	conn, clock := modernListenServer(t)
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return conn, nil },
		now: clock.Now, clock: clock, static: true, PingInterval: 30 * time.Second, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 30)
	d.waitScreen("MCP 2026-07-28", "the server's tools changed")
	discovers := d.sentCount("server/discover")
	clock.Advance(2 * time.Minute)
	d.settle()
	if n := d.sentCount("ping", "server/discover"); n != discovers {
		t.Fatalf("%d probes after 2 minutes of silence, want the %d of the start", n, discovers)
	}
	if m.health.armedGen != 0 {
		t.Fatal("a health timer is armed in 2026-07-28")
	}
}

// --ping-interval 0 turns the health check off.
func TestHealthPingOff(t *testing.T) {
	clock := newFakeClock()
	tc := newTestConn(t, clock, defaultFakeTools())
	m := New(Options{Connect: tc.connector(), now: clock.Now, clock: clock, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 30)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] == 2 })
	clock.Advance(5 * time.Minute)
	d.settle()
	if n := d.sentCount("ping"); n != 0 || clock.Armed() != 0 {
		t.Fatalf("%d pings, %d timers with the health check off", n, clock.Armed())
	}
}

// Only the server's frames count as hearing from it: the HTTP
// transport's notes (a GET stream retrying) do not put the ping off.
func TestHealthHeardOnlyFromFrames(t *testing.T) {
	var h health
	at := testEpoch.Add(time.Minute)
	h.heardFrom([]wire.Record{{Dir: wire.In, Kind: wire.KindHTTP, Data: []byte("GET stream: reconnecting")},
		{Dir: wire.Out, Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","method":"x"}`)}}, 0, at)
	if !h.heard.IsZero() {
		t.Fatal("an HTTP note or our own frame counted as the server's traffic")
	}
	h.heardFrom([]wire.Record{{Dir: wire.In, Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}}, 0, at)
	if !h.heard.Equal(at) {
		t.Fatal("the server's frame was not heard")
	}
}

// An unanswered health ping is written to the session's log (--log), as
// the spec asks of ping failures, and so is its late answer.
func TestHealthPingFailureLogged(t *testing.T) {
	clock := newFakeClock()
	a, b := transporttest.Pipe()
	server := newFakeServer(t, b, defaultFakeTools())
	hold := make(chan struct{})
	server.mu.Lock()
	server.pingHold = hold
	server.mu.Unlock()
	var log buffertest.Buffer
	conn := connect.Attach(connect.Spec{Name: "fake"}, a, connect.Options{Session: session.Config{Clock: clock,
		Logger: slog.New(slog.NewTextHandler(&log, nil))}})
	t.Cleanup(func() { conn.Close() })
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return conn, nil }, now: clock.Now, clock: clock,
		static: true, PingInterval: 30 * time.Second, frameInterval: time.Millisecond})
	d := newDriver(t, m, 120, 30)
	tc := &testConn{server: server, client: conn.Session, clock: clock, conn: conn}
	d.waitFor("tools listed and the health timer armed", func() bool {
		return len(m.tools.Tools()) > 0 && clock.Armed() == 1 && d.heardCount() == 2
	})
	d.advanceRearmed(tc, 30*time.Second)
	d.waitFor("the health ping", func() bool { return d.sentCount("ping") == 1 })
	d.advanceRearmed(tc, 10*time.Second)
	d.waitFor("the warning logged", func() bool { return strings.Contains(log.String(), `msg="health ping unanswered" after=10s`) })
	close(hold)
	d.waitFor("the late answer logged", func() bool { return strings.Contains(log.String(), `msg="health ping answered late" after=10s`) })
}

// A server that answers ping with an error (one without ping, -32601)
// still answered: the connection lives, and the header says how fast.
func TestHealthPingErrorAnswerCounts(t *testing.T) {
	d, tc := newHealthModel(t, 30*time.Second, 140, 30)
	tc.server.mu.Lock()
	tc.server.pingErr = &session.RPCError{Code: session.CodeMethodNotFound, Message: "Method not found"}
	tc.server.mu.Unlock()
	tc.clock.Advance(30 * time.Second)
	d.waitScreen("● ready · ping 0.000ms")
}

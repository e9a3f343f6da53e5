package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// TestTracedRequestShowsItsTraceparent: with --trace (Config.Trace) a
// request's traceparent is in its detail, under params' _meta, and in
// the wire log's line of the frame, where a person reading the TUI can
// copy it into a tracing backend's search.
func TestTracedRequestShowsItsTraceparent(t *testing.T) {
	clock := newFakeClock()
	a, b := transporttest.Pipe()
	server := newFakeServer(t, b, defaultFakeTools())
	conn := connect.Attach(connect.Spec{Name: "fake"}, a, connect.Options{Session: session.Config{Clock: clock, Trace: true}})
	t.Cleanup(func() { conn.Close() })
	tc := &testConn{server: server, client: conn.Session, pipe: a, clock: clock, conn: conn}
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, Demo: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 45)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] == 2 })
	c := d.callTool(tc, "sleep")
	c.Reply(map[string]any{"content": []any{}})
	d.waitFor("the call answered", func() bool { return m.table.Selected().State == session.Completed })

	sent := m.table.Selected().Trace
	if sent.IsZero() {
		t.Fatal("the traced call's row has no traceparent")
	}
	tp := sent.String()
	if !regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`).MatchString(tp) {
		t.Fatalf("traceparent %q is not W3C trace context", tp)
	}
	if got := string(c.In.Params); !strings.Contains(got, `"traceparent":"`+tp+`"`) {
		t.Fatalf("the server got params %s, not traceparent %s", got, tp)
	}
	d.waitScreen("DETAIL", `"traceparent": "`+tp+`"`)
	d.key("w")
	d.waitScreen("WIRE LOG", "→ tools/call sleep #3 · ", `"params":{"_meta":{`)
	// The line is clipped at the pane's width; enter opens the frame.
	d.setFocusBottom()
	d.key("G")
	d.key("up")
	d.key("enter")
	d.waitScreen("esc back", `"method": "tools/call",`, `"traceparent": "`+tp+`"`)
}

package ui

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// demoOverHTTP serves the demo server over Streamable HTTP, both eras,
// through wrap when given; its log is returned as it grows.
func demoOverHTTP(t *testing.T, wrap func(http.Handler) http.Handler) (url string, log *buffertest.Buffer) {
	t.Helper()
	log = &buffertest.Buffer{}
	h := demo.HTTPHandler(log, demo.Options{}, false)
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(h)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(func() { h.Close(); srv.Close() })
	return srv.URL + "/mcp", log
}

// httpModel runs the UI on url, with the protocol chosen.
func httpModel(t *testing.T, url, protocol string) *driver {
	t.Helper()
	connect.ForgetEras()
	clock := newFakeClock()
	opts := connect.Options{Protocol: protocol, Session: session.Config{Clock: clock}}
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return connect.Start(connect.URLSpec(url), opts) },
		now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 30)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 })
	t.Cleanup(func() {
		if d.m.conn != nil {
			d.m.conn.Close()
		}
	})
	return d
}

// startSleep calls sleep for long enough and waits for its first progress.
func startSleep(d *driver) {
	d.t.Helper()
	d.m.setFocus(focusTools)
	d.m.tools.Select("sleep")
	d.key("enter")
	d.key("enter")
	d.waitFor("sleep's first progress", func() bool {
		r := d.m.table.Selected()
		return r != nil && r.Tool == "sleep" && r.ProgressOrNone().Count > 0
	})
}

// Over Streamable HTTP in 2026-07-28 a cancel closes the stream: the
// row says so, and that late traffic cannot be seen; the demo's log says
// it stopped on the closed stream. The same cancel in 2025-11-25 is a
// notification, watched for late traffic.
func TestHTTPCancelInBothEras(t *testing.T) {
	url, log := demoOverHTTP(t, nil)
	d := httpModel(t, url, connect.ProtocolAuto)
	d.waitScreen("MCP 2026-07-28 (modern)", "server/discover")
	startSleep(d)
	d.key("c")
	d.waitScreen("⊘ cancelled", "stream closed, late not observable",
		"stream closed at +", "nothing sent (the cancel of protocol", "late not observable")
	d.waitFor("the demo's log", func() bool { return strings.Contains(log.String(), `signal="stream closed"`) })

	d2 := httpModel(t, url, "2025-11-25")
	d2.waitScreen("MCP 2025-11-25 (legacy)", "initialize")
	startSleep(d2)
	d2.key("c")
	d2.waitScreen("cancelling", "as notification")
	d2.waitFor("the demo's log", func() bool { return strings.Contains(log.String(), "signal=notifications/cancelled") })
	if strings.Contains(d2.screen(), "not observable") {
		t.Error("a 2025-11-25 cancel says late traffic is not observable")
	}
}

// cutSleep breaks the response stream of the first tools/call after its
// first event: the network dropping it.
func cutSleep(next http.Handler) http.Handler { return cutCalls(1)(next) }

// cutCalls breaks the response streams of the first n tools/calls after
// their first event.
func cutCalls(n int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		var cuts atomic.Int32
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Method") != "tools/call" || cuts.Add(1) > int32(n) {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&cutWriter{ResponseWriter: w}, r)
		})
	}
}

// cutWriter drops the connection after the first write.
type cutWriter struct {
	http.ResponseWriter
	done bool
}

func (c *cutWriter) Write(b []byte) (int, error) {
	if c.done {
		return 0, io.ErrClosedPipe
	}
	n, err := c.ResponseWriter.Write(b)
	c.ResponseWriter.(http.Flusher).Flush()
	if conn, _, herr := http.NewResponseController(c.ResponseWriter).Hijack(); herr == nil {
		conn.Close()
	}
	c.done = true
	return n, err
}

func (c *cutWriter) Flush() {}

// A broken stream loses its request, and "clients MUST re-issue it as a
// new request with a new request ID" (2026-07-28 changelog): the UI
// re-issues it by itself, once, and the rows say which is which.
func TestLostRequestIsReissued(t *testing.T) {
	url, _ := demoOverHTTP(t, cutSleep)
	d := httpModel(t, url, session.Era2026Version)
	d.m.setFocus(focusTools)
	d.m.tools.Select("sleep")
	d.key("enter")
	d.key("enter")
	d.waitScreen("sent lost #3 tools/call sleep again as request #4", "4    tools/call sleep", "re-issue of lost request #3")
	d.selectID("3")
	d.waitScreen("✗ failed", "lost: stream broke at +", "re-issued as request #4, as protocol 2026-07-28 asks")
}

// A re-issue that is lost too is not re-issued again by itself: its row
// says so, and r sends it again by hand.
func TestLostReissueIsNotReissuedAgain(t *testing.T) {
	url, _ := demoOverHTTP(t, cutCalls(2))
	d := httpModel(t, url, session.Era2026Version)
	d.m.setFocus(focusTools)
	d.m.tools.Select("sleep")
	d.key("enter")
	d.key("enter")
	d.waitScreen("a re-issue of lost request #3, lost too: press r to re-issue it under a new id")
	if strings.Contains(d.screen(), "re-issuing lost") {
		t.Fatalf("the lost re-issue is being re-issued again:\n%s", d.screen())
	}
	if n := d.countRows("tools/call"); n != 2 {
		t.Fatalf("%d tools/call rows, want the lost one and its one re-issue:\n%s", n, d.screen())
	}
	d.m.setFocus(focusRequests)
	d.key("r")
	d.waitScreen("sent lost #4 tools/call sleep again as request #5", "5    tools/call sleep")
}

// modernListenServer is a modern server that notifies tool list changes:
// it acknowledges a subscription and sends one change on it.
func modernListenServer(t *testing.T) (*connect.Conn, *clocktest.Clock) {
	t.Helper()
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"server/discover": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"resultType": "complete", "supportedVersions": []string{session.Era2026Version}, "ttlMs": 0, "cacheScope": "public",
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
				"_meta":        map[string]any{session.MetaServerInfo: map[string]any{"name": "notifier", "version": "1"}}}, nil
		},
		"tools/list": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"resultType": "complete", "ttlMs": 60000, "cacheScope": "public",
				"tools": []any{map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}, nil
		},
		"subscriptions/listen": func(ctx context.Context, in *session.Incoming) (any, error) {
			tag := map[string]any{session.MetaSubscriptionID: in.ID}
			_ = in.Session().Notify("notifications/subscriptions/acknowledged", map[string]any{"_meta": tag, "notifications": map[string]any{"toolsListChanged": true}})
			_ = in.Session().Notify("notifications/tools/list_changed", map[string]any{"_meta": tag})
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}})
	connect.ForgetEras()
	clock := newFakeClock()
	c := connect.Attach(connect.Spec{Name: "notifier"}, a, connect.Options{Protocol: connect.ProtocolAuto, Session: session.Config{Clock: clock}})
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c, clock
}

// selectMethod selects the first row of method.
func (d *driver) selectMethod(method string) {
	d.t.Helper()
	d.m.setFocus(focusRequests)
	for _, r := range d.m.store.Rows {
		if r.Method == method {
			d.m.table.SelectSeq(r.Seq)
			d.send(tickMsg{})
			return
		}
	}
	d.t.Fatalf("no %s row", method)
}

// In 2026-07-28 the UI opts in to the list changes the server notifies
// with subscriptions/listen: the row shows the acknowledgement and the
// notifications, and a tools change lists the tools again.
func TestListenRowAndToolsChange(t *testing.T) {
	conn, clock := modernListenServer(t)
	used := false
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) {
		if used {
			return nil, errors.New("connected twice")
		}
		used = true
		return conn, nil
	}, now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 30)
	d.waitScreen("subscriptions/listen", "listening: 1 notification", "the server's tools changed")
	d.selectMethod("subscriptions/listen")
	d.waitScreen(`subscription acknowledged {"toolsListChanged":true} · 1 notification`, "notifications/tools/list_changed")
}

// A modern list result says how long it may be cached.
func TestDetailShowsCacheHints(t *testing.T) {
	conn, clock := modernListenServer(t)
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return conn, nil },
		now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 30)
	d.waitScreen("the server's tools changed (tools/list_changed)", "   tools/list ")
	d.selectMethod("tools/list")
	d.waitScreen("cache ttl 60s, cache public")
}

// selectID selects the row of our request with JSON-RPC id.
func (d *driver) selectID(id string) {
	d.t.Helper()
	d.m.setFocus(focusRequests)
	for _, r := range d.m.store.Rows {
		if !r.Incoming && r.ID.String() == id {
			d.m.table.SelectSeq(r.Seq)
			d.send(tickMsg{})
			return
		}
	}
	d.t.Fatalf("no row of id %s", id)
}

// countRows counts the rows of method.
func (d *driver) countRows(method string) int {
	n := 0
	for _, r := range d.m.store.Rows {
		if r.Method == method {
			n++
		}
	}
	return n
}

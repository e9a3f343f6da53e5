package ui

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// evil26 is what the hostile modern server appends to every string: a
// screen clear, a title change, a C1 CSI, a bidi override, a zero-width
// space and tag characters spelling an instruction.
const evil26 = "\x1b[2J\x1b]0;pwned\x07\u009b\u202e\u200b\U000e0072\U000e0065\U000e0061\U000e0064"

// assertModelSafe fails if the rendered screen, the styles' own colour
// sequences aside, holds what assertScreenSafe refuses.
func assertModelSafe(t *testing.T, d *driver, where string) {
	t.Helper()
	if os.Getenv("H19") != "" {
		t.Logf("=== %s\n%s", where, d.screen())
	}
	assertScreenSafe(t, where, sgr.ReplaceAllString(d.m.render(), ""))
}

// hostileModernConn is a 2026-07-28 server on an in-memory pipe with evil
// in every string it sends: discover's serverInfo and instructions, tool
// names and descriptions, resources, prompts, an input_required round
// (input key, elicitation message, schema titles and defaults), log
// messages and the notifications of subscriptions/listen.
func hostileModernConn(t *testing.T, clock *clocktest.Clock) func(context.Context, *mcp.ClientSide) (*connect.Conn, error) {
	e := func(s string) string { return s + evil26 }
	log := func(in *session.Incoming) {
		_ = in.Session().Notify("notifications/message", map[string]any{"level": "error", "logger": e("db"), "data": map[string]any{e("k"): e("v")}})
	}
	handlers := map[string]session.Handler{
		"server/discover": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"resultType": "complete", "supportedVersions": []string{session.Era2026Version},
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "resources": map[string]any{"subscribe": true},
					"prompts": map[string]any{}, "logging": map[string]any{}},
				"instructions": e("Be nice."),
				"_meta":        map[string]any{session.MetaServerInfo: map[string]any{"name": e("srv"), "title": e("Title"), "version": e("1")}}}, nil
		},
		"tools/list": func(_ context.Context, in *session.Incoming) (any, error) {
			log(in)
			return map[string]any{"resultType": "complete", "tools": []any{
				map[string]any{"name": "ask", "title": e("Ask"), "description": e("Asks."), "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": e("t"), "description": e("desc"), "inputSchema": map[string]any{"type": "object",
					"properties": map[string]any{e("p"): map[string]any{"type": "string", "description": e("pd")}}}}}}, nil
		},
		"tools/call": func(_ context.Context, in *session.Incoming) (any, error) {
			var p struct {
				RequestState *string `json:"requestState"`
			}
			_ = json.Unmarshal(in.Params, &p)
			if p.RequestState == nil {
				return map[string]any{"resultType": "input_required", "requestState": e("state"),
					"inputRequests": map[string]any{e("key"): map[string]any{"method": "elicitation/create", "params": map[string]any{
						"mode": "form", "message": e("Your name?"), "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
							"n": map[string]any{"type": "string", "title": e("Name"), "description": e("d"), "default": e("x")}}}}}}}, nil
			}
			log(in)
			return map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": e("result")}}}, nil
		},
		"resources/list": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"resultType": "complete", "resources": []any{map[string]any{"uri": e("x://r"), "name": e("r"),
				"description": e("rd"), "mimeType": e("text/plain")}}}, nil
		},
		"resources/templates/list": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"resultType": "complete", "resourceTemplates": []any{}}, nil
		},
		"prompts/list": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"resultType": "complete", "prompts": []any{map[string]any{"name": e("p"), "description": e("pd"),
				"arguments": []any{map[string]any{"name": e("a"), "description": e("ad")}}}}}, nil
		},
		"subscriptions/listen": func(ctx context.Context, in *session.Incoming) (any, error) {
			tag := map[string]any{session.MetaSubscriptionID: in.ID}
			_ = in.Session().Notify("notifications/subscriptions/acknowledged", map[string]any{"_meta": tag,
				"notifications": map[string]any{"toolsListChanged": true, e("x"): e("y")}})
			_ = in.Session().Notify("notifications/resources/updated", map[string]any{"_meta": tag, "uri": e("x://r")})
			_ = in.Session().Notify("notifications/message", map[string]any{"_meta": tag, "level": e("odd"), "data": e("listen log")})
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	return func(_ context.Context, cs *mcp.ClientSide) (*connect.Conn, error) {
		a, b := transporttest.Pipe()
		srv := session.New(b, session.Config{Handlers: handlers})
		connect.ForgetEras()
		o := connect.Options{Protocol: connect.ProtocolAuto, Session: session.Config{Clock: clock}}
		cs.Install(&o.Session)
		o.Capabilities = cs.Capabilities(session.Era2026Version)
		conn := connect.Attach(connect.Spec{Name: "hostile-modern"}, a, o)
		t.Cleanup(func() {
			conn.Close()
			srv.Close()
		})
		return conn, nil
	}
}

// escapedEvil is evil as termtext shows it.
var escapedEvil = regexp.QuoteMeta(`\x1b[2J\x1b]0;pwned\x07\u009b\u202e\u200b\U000e0072`)

// Every string a 2026-07-28 server sends reaches the screen escaped: the
// header, the tools, resources and prompts panes, the question of an
// input_required round, the rows and details of both rounds, the log
// pane and the listen row.
func TestHostileModernServerNeverReachesTheScreenRaw(t *testing.T) {
	clock := newFakeClock()
	m := New(Options{ConnectAnswering: hostileModernConn(t, clock), now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 160, 40)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 1 })
	d.settle()
	assertModelSafe(t, d, "start")
	if !regexp.MustCompile(`srv` + escapedEvil).MatchString(d.screen()) {
		t.Errorf("the server's name is not shown escaped:\n%s", d.screen())
	}
	for _, k := range []string{"2", "3", "1"} {
		d.key(k)
		d.settle()
		assertModelSafe(t, d, "pane "+k)
	}
	row := callAsk(d)
	d.settle()
	assertModelSafe(t, d, "question")
	// The input's key is escaped once, not quoted again (\\x1b).
	if !regexp.MustCompile(`Your name\?`+escapedEvil).MatchString(d.screen()) || !strings.Contains(d.screen(), `input "key\x1b`) {
		t.Errorf("the question is not shown escaped once:\n%s", d.screen())
	}
	d.key("esc")
	d.settle()
	assertModelSafe(t, d, "question closed")
	d.m.setFocus(focusRequests)
	d.m.table.SelectSeq(row.Seq)
	d.send(tickMsg{})
	d.settle()
	assertModelSafe(t, d, "round 1 detail")
	d.key("enter") // the row's question again
	d.waitScreen("THE SERVER ASKS · elicitation (form)")
	d.key("enter") // accept, with the defaults
	var retry *rows.Row
	d.waitFor("the retry completed", func() bool {
		for _, r := range d.m.store.Rows {
			if r.Retry != nil && r.Retry.N == 2 && r.State == session.Completed && r.Info != nil {
				retry = r
				return true
			}
		}
		return false
	})
	d.m.setFocus(focusRequests)
	d.m.table.SelectSeq(retry.Seq)
	d.send(tickMsg{})
	d.settle()
	assertModelSafe(t, d, "round 2 detail")
	if !regexp.MustCompile(`result` + escapedEvil).MatchString(d.screen()) {
		t.Errorf("the result is not shown escaped:\n%s", d.screen())
	}
	d.key("l")
	d.settle()
	assertModelSafe(t, d, "log pane")
	d.key("l")
	d.selectMethod("subscriptions/listen")
	d.settle()
	assertModelSafe(t, d, "listen detail")
	for _, k := range []string{"w", "w", "e"} {
		d.key(k)
		d.settle()
		assertModelSafe(t, d, "pane "+k)
	}
}

// A 2025-11-25 server answering tools/call with a 2026 input_required
// result: that era has no multi round-trip requests, so the row is
// completed, asks nothing and sends no retry.
func TestLegacyInputRequiredIsNotFollowed(t *testing.T) {
	clock := newFakeClock()
	handlers := map[string]session.Handler{
		"initialize": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "old", "version": "1"},
				"capabilities": map[string]any{"tools": map[string]any{}}}, nil
		},
		"tools/list": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"tools": []any{map[string]any{"name": "ask", "inputSchema": map[string]any{"type": "object"}}}}, nil
		},
		"tools/call": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"resultType": "input_required", "requestState": "s",
				"inputRequests": map[string]any{"k": map[string]any{"method": "roots/list"}}}, nil
		},
	}
	m := New(Options{ConnectAnswering: func(_ context.Context, cs *mcp.ClientSide) (*connect.Conn, error) {
		a, b := transporttest.Pipe()
		srv := session.New(b, session.Config{Handlers: handlers})
		o := connect.Options{Session: session.Config{Clock: clock}}
		cs.Install(&o.Session)
		conn := connect.Attach(connect.Spec{Name: "old"}, a, o)
		t.Cleanup(func() { conn.Close(); srv.Close() })
		return conn, nil
	}, now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 30)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 })
	d.m.setFocus(focusTools)
	d.key("enter")
	d.key("enter")
	d.waitScreen("tools/call ask", "✓ completed")
	d.settle()
	for _, r := range d.m.store.Rows {
		if r.NeedsInput() || r.Retry != nil || r.Rounds != nil {
			t.Fatalf("row #%s followed input_required in a 2025 session:\n%s", r.ID, d.screen())
		}
	}
}

package ui

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// modernFeatureServer is a 2026-07-28 server with resources it notifies
// through subscriptions/listen. It records every listen (its filter, and
// whether it was closed), every method asked and the log level of each
// request.
type modernFeatureServer struct {
	srv *session.Session

	mu      sync.Mutex
	listens []*heardListen
	methods []string
	levels  []string
	// ackNone: acknowledge every listen as agreeing to nothing.
	ackNone bool
}

// heardListen is one subscriptions/listen the server received.
type heardListen struct {
	id     session.ID
	uris   []string
	closed bool
	end    chan struct{}
}

func newModernFeatureServer(t *testing.T, conn *transporttest.End) *modernFeatureServer {
	rs := &modernFeatureServer{}
	complete := func(m map[string]any) map[string]any {
		m["resultType"] = "complete"
		return m
	}
	record := func(h session.Handler) session.Handler {
		return func(ctx context.Context, in *session.Incoming) (any, error) {
			rs.mu.Lock()
			rs.methods = append(rs.methods, in.Method)
			rs.levels = append(rs.levels, mcp.ReadRequestMeta(in.Params).LogLevel)
			rs.mu.Unlock()
			return h(ctx, in)
		}
	}
	rs.srv = session.New(conn, session.Config{Handlers: map[string]session.Handler{
		"server/discover": record(func(context.Context, *session.Incoming) (any, error) {
			return complete(map[string]any{"supportedVersions": []string{session.Era2026Version},
				"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{"subscribe": true}},
				"_meta":        map[string]any{session.MetaServerInfo: map[string]any{"name": "modern-features", "version": "1"}}}), nil
		}),
		"tools/list": record(func(context.Context, *session.Incoming) (any, error) {
			return complete(map[string]any{"tools": []any{}}), nil
		}),
		"resources/list": record(func(context.Context, *session.Incoming) (any, error) {
			return complete(map[string]any{"resources": []any{
				map[string]any{"uri": "res://a", "name": "a"}, map[string]any{"uri": "res://b", "name": "b"}}}), nil
		}),
		"resources/templates/list": record(func(context.Context, *session.Incoming) (any, error) {
			return complete(map[string]any{"resourceTemplates": []any{}}), nil
		}),
		"subscriptions/listen": record(func(ctx context.Context, in *session.Incoming) (any, error) {
			var p struct {
				Notifications mcp.ListenFilter `json:"notifications"`
			}
			_ = json.Unmarshal(in.Params, &p)
			h := &heardListen{id: in.ID, uris: p.Notifications.ResourceSubscriptions, end: make(chan struct{})}
			rs.mu.Lock()
			rs.listens = append(rs.listens, h)
			agreed := p.Notifications
			if rs.ackNone {
				agreed = mcp.ListenFilter{}
			}
			rs.mu.Unlock()
			_ = in.Session().Notify("notifications/subscriptions/acknowledged", map[string]any{
				"_meta": map[string]any{session.MetaSubscriptionID: in.ID}, "notifications": agreed})
			select {
			case <-ctx.Done():
			case <-h.end:
				// The server ends it: a final response.
				return map[string]any{"resultType": "complete", "_meta": map[string]any{session.MetaSubscriptionID: in.ID}}, nil
			}
			rs.mu.Lock()
			h.closed = true
			rs.mu.Unlock()
			return nil, ctx.Err()
		}),
	}})
	t.Cleanup(func() { rs.srv.Close() })
	return rs
}

// updated notifies a resource's change on the newest listen.
func (rs *modernFeatureServer) updated(uri string) {
	rs.mu.Lock()
	id := rs.listens[len(rs.listens)-1].id
	rs.mu.Unlock()
	_ = rs.srv.Notify(mcp.ResourceUpdated, map[string]any{"_meta": map[string]any{session.MetaSubscriptionID: id}, "uri": uri})
}

// endListen ends the newest listen, as a server shutting down does.
func (rs *modernFeatureServer) endListen() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	close(rs.listens[len(rs.listens)-1].end)
}

// heard is a copy of the listens the server received.
func (rs *modernFeatureServer) heard() []heardListen {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []heardListen
	for _, h := range rs.listens {
		out = append(out, *h)
	}
	return out
}

func newModernFeatureModel(t *testing.T) (*driver, *modernFeatureServer) {
	clock := newFakeClock()
	a, b := transporttest.Pipe()
	rs := newModernFeatureServer(t, b)
	connect.ForgetEras()
	conn := connect.Attach(connect.Spec{Name: "modern-features"}, a, connect.Options{Protocol: connect.ProtocolAuto, Session: session.Config{Clock: clock}})
	t.Cleanup(func() { conn.Close() })
	used := false
	m := New(Options{now: clock.Now, static: true, frameInterval: time.Millisecond,
		Connect: func(context.Context) (*connect.Conn, error) {
			if used {
				return nil, errors.New("connected twice")
			}
			used = true
			return conn, nil
		}})
	d := newDriver(t, m, 140, 40)
	d.waitFor("tools listed", func() bool { return !m.tools.loading })
	return d, rs
}

// In 2026-07-28 s subscribes through subscriptions/listen: each press
// opens a listen with the whole set and, once it is acknowledged, closes
// the one it replaces; unsubscribing from the last closes it. No
// resources/subscribe is sent.
func TestModernSubscribeThroughListen(t *testing.T) {
	d, rs := newModernFeatureModel(t)
	d.key("2")
	d.waitScreen("RESOURCES 2")
	d.selectEntry(d.m.resources, "res://a")
	d.key("s")
	d.waitScreen("subscribed to res://a through subscriptions/listen #5 (acknowledged)", "subscribed res://a")
	rs.updated("res://a")
	d.waitScreen("updated ×1", "listening: 1 notification")

	d.selectEntry(d.m.resources, "res://b")
	d.key("s")
	d.waitScreen("subscribed to res://b through subscriptions/listen #6", "subscribed res://b")
	d.waitFor("the first listen closed", func() bool { h := rs.heard(); return len(h) == 2 && h[0].closed && !h[1].closed })
	if h := rs.heard(); !slices.Equal(h[1].uris, []string{"res://a", "res://b"}) {
		t.Fatalf("second listen asked for %v", h[1].uris)
	}
	if !d.m.resources.marks["res://a"].subscribed {
		t.Fatal("res://a no longer marked subscribed")
	}

	d.key("s")
	d.waitScreen("unsubscribed from res://b: subscriptions/listen #7 no longer names it")
	d.selectEntry(d.m.resources, "res://a")
	d.key("s")
	d.waitScreen("unsubscribed from res://a: closed subscriptions/listen #7 (notifications/cancelled: the era's cancel on stdio)")
	d.waitFor("every listen closed", func() bool {
		h := rs.heard()
		return len(h) == 3 && h[2].closed && slices.Equal(h[2].uris, []string{"res://a"})
	})
	if d.m.resources.marks["res://a"].subscribed || d.m.resources.marks["res://b"].subscribed {
		t.Fatal("still marked subscribed")
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if slices.Contains(rs.methods, "resources/subscribe") || slices.Contains(rs.methods, "resources/unsubscribe") {
		t.Fatalf("a removed method was sent: %v", rs.methods)
	}
}

// A resource the server leaves out of its acknowledgement is not
// subscribed, and the status says so.
func TestModernSubscribeLeftOutOfTheAck(t *testing.T) {
	d, rs := newModernFeatureModel(t)
	rs.mu.Lock()
	rs.ackNone = true
	rs.mu.Unlock()
	d.key("2")
	d.waitScreen("RESOURCES 2")
	d.selectEntry(d.m.resources, "res://b")
	d.key("s")
	d.waitScreen("subscribe to res://b: the server acknowledged subscriptions/listen #5 without it")
	if d.m.resources.marks["res://b"].subscribed || d.m.features.subs["res://b"] != subNone {
		t.Fatal("marked subscribed")
	}
}

// In 2026-07-28 V sets the level the requests that follow carry in
// _meta, and p probes with server/discover.
func TestModernLogLevelAndPing(t *testing.T) {
	d, rs := newModernFeatureModel(t)
	d.key("V")
	d.waitScreen("log level (debug, info")
	d.key("ctrl+u")
	d.typeText("warning")
	d.key("enter")
	d.waitScreen("log level warning: sent in the _meta (io.modelcontextprotocol/logLevel) of every request from now on")
	d.key("p")
	d.waitScreen("server/discover #3 answered: ", "(the era's liveness probe: this protocol has no ping)")
	d.key("l")
	d.waitScreen("SERVER LOG 0 messages · level warning (per request)")
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if got := strings.Join(rs.methods, ","); got != "server/discover,tools/list,server/discover" {
		t.Fatalf("methods %s", got)
	}
	if rs.levels[0] != "" || rs.levels[2] != "warning" {
		t.Fatalf("log levels per request %q", rs.levels)
	}
}

// A listen the server ends takes its subscriptions with it, and the
// status says so.
func TestModernSubscriptionEndedByTheServer(t *testing.T) {
	d, rs := newModernFeatureModel(t)
	d.key("2")
	d.waitScreen("RESOURCES 2")
	d.selectEntry(d.m.resources, "res://a")
	d.key("s")
	d.waitScreen("subscribed to res://a through subscriptions/listen #5")
	rs.endListen()
	d.waitScreen("subscriptions/listen #5 ended (completed): no longer subscribed to res://a; s subscribes again")
	if d.m.resources.marks["res://a"].subscribed || len(d.m.features.subs) != 0 || d.m.features.listen.cur != nil {
		t.Fatal("still subscribed")
	}
	d.key("s")
	d.waitScreen("subscribed to res://a through subscriptions/listen #6")
}

package ui

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// featureServer is a scripted server with resources, prompts, completion
// and logging. Completions wait for the test (held) when hold is set;
// notifications are sent with notify. It records what it was asked.
type featureServer struct {
	t   *testing.T
	srv *session.Session

	mu          sync.Mutex
	resources   []map[string]any
	subscribed  map[string]bool
	levels      []string
	completions chan *heldCompletion
	hold        bool
	cancels     []cancelSeen
	gets        []json.RawMessage
}

// heldCompletion is a completion/complete the test answers.
type heldCompletion struct {
	ID    session.ID
	Value string
	reply chan []string
}

func newFeatureServer(t *testing.T, conn *transporttest.End) *featureServer {
	rs := &featureServer{t: t, subscribed: map[string]bool{}, completions: make(chan *heldCompletion, 16),
		resources: []map[string]any{
			{"uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain"},
			{"uri": "file:///img.png", "name": "img.png", "title": "An image", "mimeType": "image/png"},
			{"uri": "live://clock", "name": "clock", "description": "changes"},
		}}
	ok := func(context.Context, *session.Incoming) (any, error) { return struct{}{}, nil }
	uriOf := func(in *session.Incoming) string {
		var p struct{ URI string }
		_ = json.Unmarshal(in.Params, &p)
		return p.URI
	}
	rs.srv = session.New(conn, session.Config{
		Handlers: map[string]session.Handler{
			"initialize": func(context.Context, *session.Incoming) (any, error) {
				return map[string]any{"protocolVersion": session.LatestVersion, "serverInfo": map[string]any{"name": "features", "version": "1"},
					"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{"subscribe": true, "listChanged": true},
						"prompts": map[string]any{"listChanged": true}, "completions": map[string]any{}, "logging": map[string]any{}}}, nil
			},
			"tools/list": func(context.Context, *session.Incoming) (any, error) { return map[string]any{"tools": []any{}}, nil },
			"resources/list": func(context.Context, *session.Incoming) (any, error) {
				rs.mu.Lock()
				defer rs.mu.Unlock()
				return map[string]any{"resources": append([]map[string]any(nil), rs.resources...)}, nil
			},
			"resources/templates/list": func(context.Context, *session.Incoming) (any, error) {
				return map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "file:///{dir}/{name}", "name": "files"}}}, nil
			},
			"resources/read": func(ctx context.Context, in *session.Incoming) (any, error) {
				uri := uriOf(in)
				switch uri {
				case "file:///img.png":
					return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "image/png", "blob": "AAEC"}}}, nil
				case "live://clock":
					return map[string]any{"contents": []any{map[string]any{"uri": uri, "text": "12:00"}}}, nil
				}
				return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/plain", "text": "hello from " + uri + "\x1b[2J"}}}, nil
			},
			"resources/subscribe": func(_ context.Context, in *session.Incoming) (any, error) {
				rs.mu.Lock()
				rs.subscribed[uriOf(in)] = true
				rs.mu.Unlock()
				return struct{}{}, nil
			},
			"resources/unsubscribe": func(_ context.Context, in *session.Incoming) (any, error) {
				rs.mu.Lock()
				delete(rs.subscribed, uriOf(in))
				rs.mu.Unlock()
				return struct{}{}, nil
			},
			"prompts/list": func(context.Context, *session.Incoming) (any, error) {
				return map[string]any{"prompts": []any{map[string]any{"name": "greet", "description": "Greets",
					"arguments": []any{map[string]any{"name": "lang", "required": true}, map[string]any{"name": "who"}}}}}, nil
			},
			"prompts/get": func(_ context.Context, in *session.Incoming) (any, error) {
				rs.mu.Lock()
				rs.gets = append(rs.gets, in.Params)
				rs.mu.Unlock()
				return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}, nil
			},
			"completion/complete": func(ctx context.Context, in *session.Incoming) (any, error) {
				var p struct {
					Argument struct{ Value string } `json:"argument"`
				}
				_ = json.Unmarshal(in.Params, &p)
				values := []string{"go", "golang", "groovy"}
				rs.mu.Lock()
				hold := rs.hold
				rs.mu.Unlock()
				if hold {
					h := &heldCompletion{ID: in.ID, Value: p.Argument.Value, reply: make(chan []string, 1)}
					rs.completions <- h
					select {
					case values = <-h.reply:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				return map[string]any{"completion": map[string]any{"values": values, "total": len(values)}}, nil
			},
			"logging/setLevel": func(_ context.Context, in *session.Incoming) (any, error) {
				var p struct{ Level string }
				_ = json.Unmarshal(in.Params, &p)
				rs.mu.Lock()
				rs.levels = append(rs.levels, p.Level)
				rs.mu.Unlock()
				return struct{}{}, nil
			},
			"resources/none": ok,
		},
		Notifications: map[string]session.NotificationHandler{
			"notifications/cancelled": func(_ *session.Session, params json.RawMessage) {
				var c cancelSeen
				_ = json.Unmarshal(params, &c)
				rs.mu.Lock()
				rs.cancels = append(rs.cancels, c)
				rs.mu.Unlock()
			},
		},
	})
	t.Cleanup(func() { rs.srv.Close() })
	return rs
}

// notify sends a notification to the client.
func (rs *featureServer) notify(method string, params any) {
	rs.t.Helper()
	if err := rs.srv.Notify(method, params); err != nil {
		rs.t.Fatal(err)
	}
}

// nextCompletion runs the model until the next held completion reaches
// the server.
func (rs *featureServer) nextCompletion(d *driver) *heldCompletion {
	rs.t.Helper()
	var h *heldCompletion
	d.waitFor("a completion/complete at the server", func() bool {
		select {
		case h = <-rs.completions:
			return true
		default:
			return false
		}
	})
	return h
}

func (rs *featureServer) snapshot() (subscribed map[string]bool, levels []string, cancels []cancelSeen, gets []json.RawMessage) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	subscribed = map[string]bool{}
	for k, v := range rs.subscribed {
		subscribed[k] = v
	}
	return subscribed, append([]string(nil), rs.levels...), append([]cancelSeen(nil), rs.cancels...), append([]json.RawMessage(nil), rs.gets...)
}

// newFeatureModel is a model on a featureServer, with completions asked for
// 1ms after typing stops.
func newFeatureModel(t *testing.T, w, h int) (*driver, *featureServer) {
	d, rs, _ := newFeatureModelHolding(t, w, h, nil)
	return d, rs
}

// newFeatureModelHolding is newFeatureModel with the client's frames that match
// held on their way to the server until the test releases them.
func newFeatureModelHolding(t *testing.T, w, h int, match func([]byte) bool) (*driver, *featureServer, *transporttest.Hold) {
	clock := newFakeClock()
	a, b := transporttest.Pipe()
	rs := newFeatureServer(t, b)
	hold := transporttest.NewHold(a, match)
	conn := connect.Attach(connect.Spec{Name: "features"}, hold, connect.Options{Session: session.Config{Clock: clock}})
	t.Cleanup(func() { conn.Close() })
	t.Cleanup(hold.Release) // first: a held frame would hold the close

	used := false
	m := New(Options{now: clock.Now, static: true, frameInterval: time.Millisecond, completionDelay: time.Millisecond,
		Connect: func(context.Context) (*connect.Conn, error) {
			if used {
				return nil, context.Canceled
			}
			used = true
			return conn, nil
		}})
	d := newDriver(t, m, w, h)
	d.waitFor("tools listed", func() bool { return !m.tools.loading })
	return d, rs, hold
}

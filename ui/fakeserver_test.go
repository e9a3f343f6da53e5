package ui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// fakeServer is a scripted MCP server on an in-memory pipe. Blocking
// tools hand their calls to the test, which decides when and how they
// end, so every flow is deterministic.
type fakeServer struct {
	t     *testing.T
	srv   *session.Session
	calls chan *fakeCall

	mu      sync.Mutex
	cancels []cancelSeen
	tools   []map[string]any
	info    map[string]any
	// initErr and listErr, when set, fail initialize and tools/list.
	initErr, listErr error
	// nextCursor, when set, ends every tools/list page: a server whose
	// paging loops.
	nextCursor string
	// tasks, when set before the UI connects, makes the server declare
	// tasks and run tools/call with a task member as one (faketasks_test.go).
	tasks *fakeTasks
	// pingHold, when set, holds every ping's answer until it is closed;
	// pingErr, when set, is the answer.
	pingHold chan struct{}
	pingErr  error
}

// handlerHold bounds how long a fake server's handler waits for the test
// to let it go on: past it the test has surely failed or forgotten, and
// the handler answers an error instead of holding the server's Close.
const handlerHold = 30 * time.Second

// fakeCall is one tools/call the test controls.
type fakeCall struct {
	Tool  string
	Args  json.RawMessage
	In    *session.Incoming
	Ctx   context.Context
	reply chan fakeReply
}

type fakeReply struct {
	result any
	err    error
}

// Reply ends the call with result.
func (c *fakeCall) Reply(result any) { c.reply <- fakeReply{result: result} }

// Fail ends the call with a JSON-RPC error.
func (c *fakeCall) Fail(err error) { c.reply <- fakeReply{err: err} }

type cancelSeen struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason"`
}

// defaultFakeTools are tools shaped like the demo's.
func defaultFakeTools() []map[string]any {
	return []map[string]any{
		{"name": "sleep", "description": "Sleeps, reporting progress; cancellable.",
			"inputSchema": json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","description":"how long","default":10,"minimum":0},"steps":{"type":"integer","description":"progress steps","default":10,"minimum":1}}}`)},
		{"name": "stubborn", "description": "Ignores cancellation and answers anyway.",
			"inputSchema": json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","default":5}}}`)},
		{"name": "echo", "description": "Echoes its text.",
			"inputSchema": json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"what to echo"}},"required":["text"]}`)},
		{"name": "fail", "description": "Fails the way you ask.",
			"inputSchema": json.RawMessage(`{"type":"object","properties":{"mode":{"enum":["error","isError"],"default":"error"}}}`)},
	}
}

// newFakeServer serves on conn.
func newFakeServer(t *testing.T, conn *transporttest.End, tools []map[string]any) *fakeServer {
	fs := &fakeServer{t: t, calls: make(chan *fakeCall, 16), tools: tools,
		info: map[string]any{"name": "fake-server", "version": "1.2.3"}}
	fs.srv = session.New(conn, session.Config{
		Handlers: map[string]session.Handler{
			"initialize": func(ctx context.Context, in *session.Incoming) (any, error) {
				if fs.initErr != nil {
					return nil, fs.initErr
				}
				caps := map[string]any{"tools": map[string]any{}}
				if fs.tasks != nil {
					caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
						"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
				}
				return map[string]any{"protocolVersion": session.LatestVersion, "serverInfo": fs.info,
					"capabilities": caps}, nil
			},
			"tools/list": func(ctx context.Context, in *session.Incoming) (any, error) {
				if fs.listErr != nil {
					return nil, fs.listErr
				}
				if fs.nextCursor != "" {
					return map[string]any{"tools": fs.tools, "nextCursor": fs.nextCursor}, nil
				}
				return map[string]any{"tools": fs.tools}, nil
			},
			"tools/call": fs.call,
			"ping": func(ctx context.Context, _ *session.Incoming) (any, error) {
				fs.mu.Lock()
				hold, pingErr := fs.pingHold, fs.pingErr
				fs.mu.Unlock()
				if pingErr != nil {
					return nil, pingErr
				}
				if hold != nil {
					select {
					case <-hold:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				return map[string]any{}, nil
			},
			"tasks/get":    fs.taskHandler("tasks/get"),
			"tasks/result": fs.taskHandler("tasks/result"),
			"tasks/cancel": fs.taskHandler("tasks/cancel"),
		},
		Notifications: map[string]session.NotificationHandler{
			"notifications/cancelled": func(_ *session.Session, params json.RawMessage) {
				var c cancelSeen
				_ = json.Unmarshal(params, &c)
				fs.mu.Lock()
				fs.cancels = append(fs.cancels, c)
				fs.mu.Unlock()
			},
		},
	})
	t.Cleanup(func() { fs.srv.Close() })
	return fs
}

func (fs *fakeServer) call(ctx context.Context, in *session.Incoming) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(in.Params, &p)
	if fs.tasks != nil && strings.Contains(string(in.Params), `"task":`) {
		return fs.tasks.create(fs.srv), nil
	}
	switch p.Name {
	case "echo":
		var a struct{ Text string }
		_ = json.Unmarshal(p.Arguments, &a)
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": a.Text}}}, nil
	case "stubborn":
		in.IgnoreCancellation()
	}
	c := &fakeCall{Tool: p.Name, Args: p.Arguments, In: in, Ctx: ctx, reply: make(chan fakeReply, 1)}
	fs.calls <- c
	select {
	case r := <-c.reply:
		return r.result, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// nextCall waits for the next blocking tools/call.
func (fs *fakeServer) nextCall() *fakeCall {
	fs.t.Helper()
	select {
	case c := <-fs.calls:
		return c
	case <-time.After(5 * time.Second):
		fs.t.Fatal("no tools/call reached the server")
		return nil
	}
}

// seenCancels returns the cancellations the server received.
func (fs *fakeServer) seenCancels() []cancelSeen {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]cancelSeen(nil), fs.cancels...)
}

// testConn is a client session on a pipe to a fake server.
type testConn struct {
	server *fakeServer
	client *session.Session
	// pipe is the client's end of the pipe, under the connection's tap.
	pipe  *transporttest.End
	clock *clocktest.Clock
	conn  *connect.Conn
}

// newTestConn builds a fake server, a tapped pipe and a client session
// on the fake clock.
func newTestConn(t *testing.T, clock *clocktest.Clock, tools []map[string]any) *testConn {
	tc, _ := newTestConnHolding(t, clock, tools, nil)
	return tc
}

// newTestConnHolding is newTestConn with the client's frames that match
// held between the connection's tap and the pipe until the test releases
// them (see transporttest.Hold).
func newTestConnHolding(t *testing.T, clock *clocktest.Clock, tools []map[string]any, match func(frame []byte) bool) (*testConn, *transporttest.Hold) {
	a, b := transporttest.Pipe()
	server := newFakeServer(t, b, tools)
	hold := transporttest.NewHold(a, match)
	conn := connect.Attach(connect.Spec{Name: "fake"}, hold, connect.Options{Session: session.Config{Clock: clock}})
	t.Cleanup(func() { conn.Close() })
	return &testConn{server: server, client: conn.Session, pipe: a, clock: clock, conn: conn}, hold
}

// connectFunc is Options.Connect.
type connectFunc = func(context.Context) (*connect.Conn, error)

// connector returns an Options.Connect that hands out tc once.
func (tc *testConn) connector() connectFunc {
	var once sync.Once
	return func(context.Context) (*connect.Conn, error) {
		var c *connect.Conn
		once.Do(func() { c = tc.conn })
		if c == nil {
			return nil, errors.New("test connector used twice")
		}
		return c, nil
	}
}

// barrier returns once the fake server has answered a ping sent now.
// Frames are read in order, so every cancel the client wrote before it
// has been counted by then.
func (tc *testConn) barrier(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := tc.client.Do(ctx, "ping", nil, session.CallOptions{NoProgressToken: true}); err != nil {
		t.Fatalf("ping barrier: %v", err)
	}
}

package ui

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// extTaskServer is a modern server of the tasks extension (2026-07-28)
// whose one tool, research, it always runs as task "ext-1". Its task
// ignores tasks/cancel (acknowledged, as the extension asks, but the work
// goes on): the test moves it with set.
type extTaskServer struct {
	mu      sync.Mutex
	status  string
	result  json.RawMessage
	cancels int
	// inputs are the inputRequests a task waiting for input shows;
	// updates the inputResponses of each tasks/update.
	inputs  json.RawMessage
	updates []json.RawMessage
	// cancelErr, when set, is tasks/cancel's error answer.
	cancelErr *session.RPCError
}

func (x *extTaskServer) set(status string, result json.RawMessage) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.status, x.result = status, result
}

func (x *extTaskServer) task() map[string]any {
	x.mu.Lock()
	defer x.mu.Unlock()
	t := map[string]any{"taskId": "ext-1", "status": x.status, "createdAt": "2026-07-28T00:00:00Z",
		"lastUpdatedAt": "2026-07-28T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": 1000}
	if x.result != nil {
		t["result"] = x.result
	}
	if x.status == session.TaskInputRequired {
		t["inputRequests"] = x.inputs
	}
	return t
}

// extTaskConn connects a client that declares the extension (as the TUI
// does) to an extTaskServer over a pipe.
func extTaskConn(t *testing.T, clock *clocktest.Clock, cs *mcp.ClientSide) (*connect.Conn, *extTaskServer) {
	t.Helper()
	x := &extTaskServer{status: session.TaskWorking}
	a, b := transporttest.Pipe()
	complete := func(m map[string]any) map[string]any { m["resultType"] = "complete"; return m }
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"server/discover": func(context.Context, *session.Incoming) (any, error) {
			return complete(map[string]any{"supportedVersions": []string{session.Era2026Version}, "ttlMs": 0, "cacheScope": "public",
				"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{session.ExtensionTasks: map[string]any{}}},
				"_meta":        map[string]any{session.MetaServerInfo: map[string]any{"name": "ext-tasks", "version": "1"}}}), nil
		},
		"tools/list": func(context.Context, *session.Incoming) (any, error) {
			return complete(map[string]any{"ttlMs": 0, "cacheScope": "public", "tools": []any{map[string]any{
				"name": "research", "description": "Runs as a task when the server decides.", "inputSchema": map[string]any{"type": "object"}}}}), nil
		},
		"tools/call": func(context.Context, *session.Incoming) (any, error) {
			t := x.task()
			t["resultType"] = session.ResultTask
			return t, nil
		},
		"tasks/get": func(context.Context, *session.Incoming) (any, error) { return complete(x.task()), nil },
		"tasks/update": func(_ context.Context, in *session.Incoming) (any, error) {
			var p struct {
				InputResponses json.RawMessage `json:"inputResponses"`
			}
			_ = json.Unmarshal(in.Params, &p)
			x.mu.Lock()
			x.updates = append(x.updates, p.InputResponses)
			x.status = session.TaskWorking
			x.mu.Unlock()
			return complete(map[string]any{}), nil
		},
		"tasks/cancel": func(context.Context, *session.Incoming) (any, error) {
			x.mu.Lock()
			x.cancels++
			refused := x.cancelErr
			x.mu.Unlock()
			if refused != nil {
				return nil, refused
			}
			return complete(map[string]any{}), nil
		},
	}})
	connect.ForgetEras()
	caps := json.RawMessage(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	o := connect.Options{Protocol: connect.ProtocolAuto, ModernCapabilities: caps, Session: session.Config{Clock: clock}}
	if cs != nil {
		// As the TUI connects: its client side answers, and declares
		// what it answers, the extension with it.
		cs.Install(&o.Session)
		o.ModernCapabilities = cs.Capabilities(session.Era2026Version)
	}
	c := connect.Attach(connect.Spec{Name: "ext-tasks"}, a, o)
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c, x
}

// A 2026-07-28 task, cancelled cooperatively: the server answers the
// tools/call with a task unasked; c sends tasks/cancel, which it only
// acknowledges (the row says so and stays cancelling); the next tasks/get
// shows the task completed all the same, and the row ends completed,
// saying that the cancel was acknowledged and the task ended completed.
func TestFlowExtensionTaskCancelledCooperatively(t *testing.T) {
	clock := newFakeClock()
	conn, x := extTaskConn(t, clock, nil)
	f := startFlow(t, clock, conn, false)
	f.waitScreen("TOOLS 1", "MCP 2026-07-28")
	f.keys("enter")
	f.waitScreen("CALL research")
	f.keys("enter")
	f.waitScreen("task research", "working", "→ task ext-1")
	f.keys("c")
	f.golden("acknowledged", "cancel acked", "tasks/cancel acknowledged")
	x.set(session.TaskCompleted, json.RawMessage(`{"content":[{"type":"text","text":"the findings, anyway"}]}`))
	clock.Advance(time.Second) // the poll due one pollIntervalMs after the task came
	f.golden("ended", "✓ completed", "cancel acknowledged; task end…", "outcome cancel acknowledged; the task ended completed: the server did not stop")
	row := f.p.m.store.Get(f.p.m.table.Selected().Seq)
	if !row.TaskOrNone().Extension || row.State != session.Completed || row.Reason != "cancelled by user" {
		t.Errorf("task row: extension %v state %v reason %q", row.TaskOrNone().Extension, row.State, row.Reason)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cancels != 1 {
		t.Errorf("%d tasks/cancel, want 1", x.cancels)
	}
}

// A 2026-07-28 task whose tasks/cancel the server refuses (an error,
// not the empty acknowledgement): the row ends cancelled, and its note
// must not say the cancel was acknowledged, nor that the still working
// task ended.
func TestFlowExtensionTaskCancelRefusedIsNotAcknowledged(t *testing.T) {
	clock := newFakeClock()
	conn, x := extTaskConn(t, clock, nil)
	x.mu.Lock()
	x.cancelErr = &session.RPCError{Code: session.CodeInvalidParams, Message: "no such task"}
	x.mu.Unlock()
	f := startFlow(t, clock, conn, false)
	f.waitScreen("TOOLS 1", "MCP 2026-07-28")
	f.keys("enter")
	f.waitScreen("CALL research")
	f.keys("enter")
	f.waitScreen("task research", "working", "→ task ext-1")
	f.keys("c")
	s := f.waitScreen("⊘ cancelled", "no such task")
	if strings.Contains(s, "cancel acknowledged") || strings.Contains(s, "task ended") {
		t.Errorf("a refused tasks/cancel reads as acknowledged:\n%s", s)
	}
}

// A task whose acknowledged cancel it never honours: after the session's
// wait the row ends cancelled, its note saying the task still works, not
// that it ended.
func TestFlowExtensionTaskCancelAcknowledgedNeverEnds(t *testing.T) {
	clock := newFakeClock()
	conn, _ := extTaskConn(t, clock, nil)
	f := startFlow(t, clock, conn, false)
	f.waitScreen("TOOLS 1", "MCP 2026-07-28")
	f.keys("enter")
	f.waitScreen("CALL research")
	f.keys("enter")
	f.waitScreen("task research", "working", "→ task ext-1")
	f.keys("c")
	f.waitScreen("cancel acked")
	clock.Advance(31 * time.Second)
	s := f.waitScreen("⊘ cancelled", "cancel acknowledged; task sti")
	if strings.Contains(s, "task ended") {
		t.Errorf("a task still working reads as ended:\n%s", s)
	}
}

// A 2026-07-28 task that needs input: the next tasks/get shows its
// inputRequests, which open the question panel as any server request
// does; the answer goes with tasks/update, the task works on and its
// row ends with the result.
func TestExtensionTaskInputIsAskedAndSentWithTasksUpdate(t *testing.T) {
	clock := newFakeClock()
	var x *extTaskServer
	m := New(Options{ConnectAnswering: func(_ context.Context, cs *mcp.ClientSide) (*connect.Conn, error) {
		var conn *connect.Conn
		conn, x = extTaskConn(t, clock, cs)
		return conn, nil
	}, now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 120, 40)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 })
	d.m.setFocus(focusTools)
	d.key("enter")
	d.waitScreen("CALL research")
	d.key("enter")
	d.waitFor("the task row", func() bool { r := d.m.table.Selected(); return r != nil && r.IsTask() })
	task := d.m.table.Selected()
	x.mu.Lock()
	x.status = session.TaskInputRequired
	x.inputs = json.RawMessage(`{"who":{"method":"elicitation/create","params":{"mode":"form","message":"Who is there?",` +
		`"requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"}},"required":["name"]}}}}`)
	x.mu.Unlock()
	d.waitFor("the question panel", func() bool {
		clock.Advance(time.Second) // polls, one pollIntervalMs apart
		return d.m.asks.panel != nil
	})
	d.waitScreen("THE SERVER ASKS", "Who is there?")
	d.key("enter")
	d.waitFor("tasks/update", func() bool { x.mu.Lock(); defer x.mu.Unlock(); return len(x.updates) == 1 })
	x.mu.Lock()
	if got := string(x.updates[0]); got != `{"who":{"action":"accept","content":{"name":"Ada"}}}` {
		t.Errorf("inputResponses %s", got)
	}
	x.status, x.result = session.TaskCompleted, json.RawMessage(`{"content":[{"type":"text","text":"hello, Ada"}]}`)
	x.mu.Unlock()
	d.waitFor("completed", func() bool {
		clock.Advance(time.Second)
		return task.State == session.Completed
	})
	d.waitScreen("tasks/update", "for task ext-1")
}

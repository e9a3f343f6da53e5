package ui

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// fakeTasks is the fake server's one task, "task-1", which the test moves
// by hand: set changes its status and tells the client; quietly changes
// it without a word, as a server that sends no notifications would.
type fakeTasks struct {
	mu      sync.Mutex
	state   session.TaskState
	ended   chan struct{}
	srv     *session.Session
	methods []string // the task methods the server received, in order
	// cancelGate, when set, holds the answer to tasks/cancel until closed.
	cancelGate chan struct{}
}

func newFakeTasks() *fakeTasks { return &fakeTasks{ended: make(chan struct{})} }

// taskTool is a tool shaped like the demo's research: it requires a task.
func taskTool() map[string]any {
	return map[string]any{"name": "research", "description": "Runs as a task.",
		"inputSchema": json.RawMessage(`{"type":"object","properties":{}}`),
		"execution":   map[string]any{"taskSupport": "required"}}
}

func (ft *fakeTasks) create(srv *session.Session) any {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ttl, poll := 60000.0, 1000.0
	ft.srv = srv
	ft.state = session.TaskState{ID: "task-1", Status: session.TaskWorking, StatusMessage: "started",
		CreatedAt: "2026-01-02T03:04:05Z", TTL: &ttl, PollInterval: &poll}
	return map[string]any{"task": ft.state}
}

// set moves the task and sends notifications/tasks/status.
func (ft *fakeTasks) set(status, msg string) {
	st := ft.quietly(status, msg)
	_ = ft.srv.Notify("notifications/tasks/status", st)
}

// quietly moves the task and says nothing.
func (ft *fakeTasks) quietly(status, msg string) session.TaskState {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	was := ft.state.Status
	ft.state.Status, ft.state.StatusMessage = status, msg
	if session.TaskStatusTerminal(status) && !session.TaskStatusTerminal(was) {
		close(ft.ended)
	}
	return ft.state
}

func (ft *fakeTasks) seen() []string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return append([]string(nil), ft.methods...)
}

// taskHandler answers a task method for the fake server's task.
func (fs *fakeServer) taskHandler(method string) session.Handler {
	return func(ctx context.Context, in *session.Incoming) (any, error) {
		ft := fs.tasks
		if ft == nil {
			return nil, &session.RPCError{Code: session.CodeMethodNotFound, Message: "no tasks"}
		}
		ft.mu.Lock()
		ft.methods = append(ft.methods, method)
		st, gate := ft.state, ft.cancelGate
		ft.mu.Unlock()
		switch method {
		case "tasks/get":
			return st, nil
		case "tasks/result":
			select {
			case <-ft.ended:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "the findings"}}}, nil
		}
		if gate != nil {
			// A test that fails before it opens the gate must not leave
			// the handler, and the server's Close behind it, waiting.
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(handlerHold):
				return nil, &session.RPCError{Code: session.CodeInternalError, Message: "the test never opened the tasks/cancel gate within " + handlerHold.String()}
			}
		}
		if session.TaskStatusTerminal(st.Status) {
			return nil, &session.RPCError{Code: session.CodeInvalidParams,
				Message: "Cannot cancel task: already in terminal status '" + st.Status + "'"}
		}
		return ft.quietly(session.TaskCancelled, "cancelled by request"), nil
	}
}

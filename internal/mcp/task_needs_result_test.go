package mcp

import (
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// NeedsResult: a task row's result is fetched once its task needs input
// or has ended, while the row is pending or its cancel was refused for a
// task already ended; never for an extension task, never twice after.
func TestNeedsResult(t *testing.T) {
	refused := &session.TaskCancelAnswer{Error: &session.RPCError{Code: session.CodeInvalidParams}}
	row := func(state session.State, status string, cancel *session.TaskCancelAnswer, ext bool) session.RequestInfo {
		info := session.RequestInfo{State: state, Task: &session.TaskInfo{Cancel: cancel, Extension: ext}}
		info.Task.State.Status = status
		return info
	}
	for _, tc := range []struct {
		name string
		info session.RequestInfo
		want bool
	}{
		{"pending, completed", row(session.Pending, session.TaskCompleted, nil, false), true},
		{"pending, input required", row(session.Pending, session.TaskInputRequired, nil, false), true},
		{"pending, working", row(session.Pending, session.TaskWorking, nil, false), false},
		{"cancelling, refused, completed", row(session.Cancelling, session.TaskCompleted, refused, false), true},
		{"cancelling, not answered, completed", row(session.Cancelling, session.TaskCompleted, nil, false), false},
		{"completed row, refused", row(session.Completed, session.TaskCompleted, refused, false), false},
		{"extension, completed", row(session.Pending, session.TaskCompleted, nil, true), false},
		{"no task", session.RequestInfo{State: session.Pending}, false},
	} {
		if got := NeedsResult(tc.info); got != tc.want {
			t.Errorf("%s: NeedsResult = %v, want %v", tc.name, got, tc.want)
		}
	}
}

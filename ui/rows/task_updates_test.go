package rows

import (
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// taskRow is a store holding task row #2 of tools/call #1.
func taskRow(t *testing.T) (*Store, session.Ref) {
	t.Helper()
	ref := session.Ref{Seq: 2, ID: session.IntID(2)}
	s, _ := apply(t, session.RequestStarted{Info: session.RequestInfo{Seq: 2, ID: ref.ID, Method: "tools/call", TaskID: "task-1",
		State: session.Pending, Task: &session.TaskInfo{Parent: ref1, State: session.TaskState{ID: "task-1", Status: session.TaskWorking}}}})
	return s, ref
}

// A task row keeps its first rowTaskUpdates statuses, however many come.
func TestTaskRowBoundsItsUpdates(t *testing.T) {
	s, ref := taskRow(t)
	for range rowTaskUpdates + 5 {
		s.Apply(session.TaskUpdated{Ref: ref, Task: session.TaskState{ID: "task-1", Status: session.TaskWorking},
			Update: session.TaskUpdate{Status: session.TaskWorking}})
	}
	if n := len(s.Get(2).Task.Updates); n != rowTaskUpdates {
		t.Errorf("task row keeps %d updates, want %d", n, rowTaskUpdates)
	}
}

// After its cancel, a task's "cancelled" is what was asked for; any
// other status is odd: the server says its task goes on, or ended
// some other way.
func TestTaskLateStatusesOtherThanCancelledAreOdd(t *testing.T) {
	s, ref := taskRow(t)
	late := func(status string) session.TaskUpdated {
		return session.TaskUpdated{Ref: ref, Task: session.TaskState{ID: "task-1", Status: status},
			Update: session.TaskUpdate{Status: status, Late: true}}
	}
	s.Apply(late(session.TaskCancelled))
	s.Apply(late(session.TaskCancelled))
	s.Apply(late(session.TaskWorking))
	if odd := s.Get(2).LateOrNone().OddStatuses; odd != 1 {
		t.Errorf("%d odd late statuses, want 1: two cancelled and one working came", odd)
	}
}

// A tasks/cancel refused as the task had ended (-32602) says so on the
// row; a row with no task never was refused.
func TestTaskCancelRefused(t *testing.T) {
	s, ref := taskRow(t)
	if s.Get(2).CancelRefused() {
		t.Error("a task not cancelled says its cancel was refused")
	}
	s.Apply(session.TaskCancelAnswered{Ref: ref, Answer: session.TaskCancelAnswer{
		Error: &session.RPCError{Code: session.CodeInvalidParams, Message: "task already completed"}}})
	if !s.Get(2).CancelRefused() {
		t.Error("a tasks/cancel answered -32602 is not shown refused")
	}
	if (&Row{}).CancelRefused() {
		t.Error("a row with no task says its cancel was refused")
	}
}

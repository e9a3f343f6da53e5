package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// newTaskModel is a model on a fake server whose research tool requires
// a task.
func newTaskModel(t *testing.T) (*driver, *testConn) {
	clock := newFakeClock()
	tc := newTestConn(t, clock, append(defaultFakeTools(), taskTool()))
	tc.server.tasks = newFakeTasks()
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 120, 40)
	d.waitFor("tools listed", func() bool {
		return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] == 2
	})
	return d, tc
}

// startResearch calls research from the editor, which goes as a task
// since the tool requires one, and returns the task row once selected.
func (d *driver) startResearch() *rows.Row {
	d.t.Helper()
	d.m.setFocus(focusTools)
	if !d.m.tools.Select("research") {
		d.t.Fatal("no research tool")
	}
	d.key("enter")
	d.waitScreen("CALL research", "(form · as a task)", "runs as a task: the tool requires one")
	d.key("enter")
	d.waitFor("the task row selected", func() bool {
		r := d.m.table.Selected()
		return r != nil && r.IsTask()
	})
	return d.m.table.Selected()
}

// The CreateTaskResult ends the tools/call; the task is a row of its own
// with the server's status and message, which notifications update.
func TestTaskRowShowsTheServersStatus(t *testing.T) {
	d, tc := newTaskModel(t)
	task := d.startResearch()
	d.waitScreen("tools/call research", "✓ completed", "→ task task-1", "task research", "working", `"started"`)
	if task.TaskOrNone().ID != "task-1" || task.State != session.Pending || task.TaskOrNone().Parent.Seq == 0 {
		t.Fatalf("task row %+v", task)
	}
	tc.server.tasks.set(session.TaskInputRequired, "which cats?")
	d.waitScreen("input required", `"which cats?"`)
	d.waitFor("tasks/result sent on input_required", func() bool {
		return slices.Contains(tc.server.tasks.seen(), "tasks/result")
	})
	tc.server.tasks.set(session.TaskCompleted, "done")
	d.waitFor("the task completed with its result", func() bool { return task.State == session.Completed })
	d.waitScreen("✓ completed")
	// The result is in the detail, below however many statuses the polls
	// brought after the cancel (one per clock step above).
	d.waitFor("the task's result in its detail", func() bool {
		return strings.Contains(strings.Join(d.m.detail.content(), "\n"), "the findings")
	})
}

// c on a task row sends tasks/cancel, never notifications/cancelled; the
// row goes cancelling, then cancelled once the server answers, and a
// status after that is late.
func TestTaskRowCancel(t *testing.T) {
	d, tc := newTaskModel(t)
	gate := make(chan struct{})
	tc.server.tasks.cancelGate = gate
	task := d.startResearch()
	d.waitScreen("task research", "working")
	d.keyDone("c")
	d.waitScreen("⠋ cancelling", `cancel requested for #3 task research: "cancelled by user"`)
	close(gate)
	d.waitFor("cancelled", func() bool { return task.State == session.Cancelled })
	d.waitScreen("⊘ cancelled", "tasks/cancel answered", "the task is cancelled")
	tc.server.tasks.set(session.TaskCancelled, "late word")
	d.waitScreen("status after cancel ×1")
	tc.barrier(t)
	if got := tc.server.seenCancels(); len(got) != 0 {
		t.Fatalf("notifications/cancelled sent for a task: %+v", got)
	}
	if !slices.Contains(tc.server.tasks.seen(), "tasks/cancel") {
		t.Fatal("no tasks/cancel reached the server")
	}
}

// A task that had ended when its cancel arrived: the server refuses
// (-32602), the row says so and then ends as the task did.
func TestTaskRowCancelRefused(t *testing.T) {
	d, tc := newTaskModel(t)
	task := d.startResearch()
	d.waitScreen("task research", "working")
	tc.server.tasks.quietly(session.TaskCompleted, "done") // no notification
	d.keyDone("c")
	d.waitScreen("cancel refused", "refused", "already in terminal status 'completed'")
	// The next poll learns how it ended; its result is fetched.
	d.waitFor("completed", func() bool {
		tc.clock.Advance(time.Second)
		return task.State == session.Completed
	})
	d.waitScreen("✓ completed", "the findings")
}

// K shows only the task rows; esc shows every row again.
func TestTasksKeyFiltersTheTable(t *testing.T) {
	d, _ := newTaskModel(t)
	d.key("K")
	d.waitScreen("TASKS 0/2", "no tasks yet")
	d.startResearch()
	d.waitScreen("TASKS 1/4", "task research")
	if strings.Contains(d.screen(), "initialize") {
		t.Errorf("the task view shows other requests:\n%s", d.screen())
	}
	d.key("K")
	d.waitScreen("REQUESTS 4", "initialize")
}

// ctrl+k calls a tool with taskSupport optional as a task, and says why
// not for a tool that forbids one.
func TestEditorAsTaskToggle(t *testing.T) {
	clock := newFakeClock()
	opt := taskTool()
	opt["name"], opt["execution"] = "maybe", map[string]any{"taskSupport": "optional"}
	tc := newTestConn(t, clock, append(defaultFakeTools(), opt))
	tc.server.tasks = newFakeTasks()
	d := newDriver(t, New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond}), 120, 40)
	d.waitFor("tools listed", func() bool { return len(d.m.tools.Tools()) > 0 })
	d.m.setFocus(focusTools)
	d.m.tools.Select("maybe")
	d.key("enter")
	d.waitScreen("CALL maybe", "may run as a task: ctrl+k calls it as one")
	d.key("ctrl+k")
	d.waitScreen("(form · as a task)")
	d.key("enter")
	d.waitScreen("task maybe", "working")

	d.m.setFocus(focusTools)
	d.m.tools.Select("echo")
	d.key("enter")
	d.key("ctrl+k")
	d.waitScreen("ctrl+k: this tool cannot be called as a task (taskSupport forbidden")
	d.key("esc")
}

// A task row through its cancel, as the screen shows it: working, with
// the task in the detail; cancelling while tasks/cancel is unanswered;
// cancelled, with the answer and a status that came after the cancel.
func TestFlowTaskCancel(t *testing.T) {
	clock := newFakeClock()
	tc := newTestConn(t, clock, append(defaultFakeTools(), taskTool()))
	tc.server.tasks = newFakeTasks()
	gate := make(chan struct{})
	tc.server.tasks.cancelGate = gate
	f := startFlow(t, clock, tc.conn, false)
	f.waitScreen("TOOLS 5", "2 completed")
	f.keys("G", "enter")
	f.waitScreen("CALL research", "(form · as a task)")
	f.keys("enter")
	f.waitScreen("task research", `"started"`)
	f.waitTimer()                          // the first poll, due at +1s
	clock.Advance(1500 * time.Millisecond) // one poll; the next is due at +2s or later
	// Its answer first, so that the new status comes by notification.
	taskRow := tc.client.Request(session.Ref{Seq: 4, ID: session.IntID(3)})
	deadline := time.Now().Add(10 * time.Second)
	for info, _ := taskRow.Info(); info.Task.Polls < 1; info, _ = taskRow.Info() {
		if time.Now().After(deadline) {
			t.Fatal("the first poll was never answered")
		}
		time.Sleep(time.Millisecond)
	}
	tc.server.tasks.set(session.TaskWorking, "reading sources")
	f.golden("working", "⠋ working", `"reading sources"`, "DETAIL #3 task research", "polled 1 time")

	clock.Advance(300 * time.Millisecond)
	f.keys("c")
	f.golden("cancelling", "⠋ cancelling", `cancel requested for #3 task research: "cancelled by user"`)
	close(gate)
	f.waitScreen("⊘ cancelled", "the task is cancelled")
	clock.Advance(150 * time.Millisecond)
	tc.server.tasks.set(session.TaskCancelled, "stopped at last")
	f.golden("cancelled", "⊘ cancelled", "status after cancel ×1", "late +0.1s")
}

// A late status that agrees with the cancel is noted; one that says the
// task goes on is a warning.
func TestLateStatusBadge(t *testing.T) {
	s := rows.NewStore()
	r := s.Apply(session.RequestStarted{Info: session.RequestInfo{Seq: 1, ID: session.IntID(1), Method: "tools/call", TaskID: "t",
		Task: &session.TaskInfo{State: session.TaskState{ID: "t", Status: "working"}}}}).Row
	late := func(status string) {
		s.Apply(session.LateArrived{Ref: r.Ref(), Late: session.LateFrame{Kind: session.LateStatus}})
		s.Apply(session.TaskUpdated{Ref: r.Ref(), Update: session.TaskUpdate{Status: status, Late: true},
			Task: session.TaskState{ID: "t", Status: status}})
	}
	late(session.TaskCancelled)
	if b, ok := lateStatusBadge(r); !ok || b.warn || b.text != "status after cancel ×1" {
		t.Fatalf("badge %+v %v", b, ok)
	}
	late(session.TaskWorking)
	if b, _ := lateStatusBadge(r); !b.warn || b.text != "status after cancel ×2" {
		t.Fatalf("badge %+v", b)
	}
	if r.LateOrNone().Progress != 0 || r.LateOrNone().Responses != 0 {
		t.Errorf("late statuses counted as progress %d or responses %d", r.LateOrNone().Progress, r.LateOrNone().Responses)
	}
}

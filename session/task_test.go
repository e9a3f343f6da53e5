package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// taskCall sends a task-augmented tools/call and answers it with a
// CreateTaskResult for taskID; it returns the call and the task row's ref.
func taskCall(t *testing.T, h *harness, taskID string, opts CallOptions) (*Call, Ref) {
	t.Helper()
	c, err := h.s.Call(context.Background(), "tools/call",
		map[string]any{"name": "research", "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"task":{"taskId":%q,"status":"working","ttl":60000,"pollInterval":500,"createdAt":"2026-01-02T03:04:05Z"}}}`,
		c.ID(), taskID)
	if _, st, _ := waitResult(t, c); st != Completed {
		t.Fatalf("the tools/call that created a task ended %v, want completed", st)
	}
	info, _ := h.s.Request(c.Ref()).Info()
	if info.TaskRow().Seq == 0 {
		t.Fatal("the CreateTaskResult made no task row")
	}
	return c, info.TaskRow()
}

// cancelTaskRow cancels the task row and returns the tasks/cancel the
// client wrote.
func cancelTaskRow(t *testing.T, h *harness, ref Ref, reason string) wireMessage {
	t.Helper()
	if err := h.s.Request(ref).Cancel(reason); err != nil {
		t.Fatal(err)
	}
	m := h.readFrame()
	if m.Method != "tasks/cancel" || m.ID == nil {
		t.Fatalf("want a tasks/cancel request, got %s %s", m.Method, m.Params)
	}
	return m
}

func noCancelNotification(t *testing.T, h *harness) {
	t.Helper()
	for _, f := range h.wire.out {
		if contains(string(f), "notifications/cancelled") {
			t.Fatalf("a task was cancelled with the notification: %s", f)
		}
	}
}

// The CreateTaskResult ends the tools/call; the task becomes a row of its
// own with the server's task id, status, ttl and poll interval.
func TestCreateTaskResultMakesATaskRow(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, ref := taskCall(t, h, "task-7", CallOptions{Timeout: time.Minute, ResetTimeoutOnProgress: true})
	info, ok := h.s.Request(ref).Info()
	if !ok {
		t.Fatal("no task row")
	}
	if info.TaskID != "task-7" || info.State != Pending || info.TaskParent() != c.Ref() || info.Method != "tools/call" || info.Tool != "research" {
		t.Fatalf("task row %+v", info)
	}
	if info.Task.State.Status != TaskWorking || info.Task.State.PollEvery() != 500*time.Millisecond || *info.Task.State.TTL != 60000 {
		t.Fatalf("task %+v", *info.Task)
	}
	if info.Timeout != time.Minute {
		t.Errorf("the task row's timeout is %v; it should inherit the call's", info.Timeout)
	}
	if len(info.Task.Updates) != 1 || info.Task.Updates[0].Via != TaskViaCreated {
		t.Errorf("updates %+v", info.Task.Updates)
	}
	started := h.events.waitFor(t, "the task row started", func(e Event) bool {
		s, ok := e.(RequestStarted)
		return ok && s.Info.TaskID == "task-7"
	}).(RequestStarted)
	if started.Info.Seq != ref.Seq {
		t.Errorf("started seq %d, want %d", started.Info.Seq, ref.Seq)
	}
}

// A server without tasks answers a task-augmented call plainly: no task.
func TestPlainAnswerToATaskCallMakesNoTaskRow(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x", "task": map[string]any{}}, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, c.ID())
	waitResult(t, c)
	if info, _ := h.s.Request(c.Ref()).Info(); info.TaskRow().Seq != 0 {
		t.Fatal("a plain result made a task row")
	}
}

// A task is cancelled with tasks/cancel, never with notifications/cancelled
// (MCP 2025-11-25, cancellation rule 3); its answer ends the row cancelled.
func TestTaskRequestIsCancelledWithTasksCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "task-7", CallOptions{})
	m := cancelTaskRow(t, h, ref, "user")
	if string(m.Params) != `{"taskId":"task-7"}` {
		t.Fatalf("tasks/cancel params %s", m.Params)
	}
	if info, _ := h.s.Request(ref).Info(); info.State != Cancelling {
		t.Fatalf("before tasks/cancel is answered: %v", info.State)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"taskId":"task-7","status":"cancelled","statusMessage":"stopped"}}`, m.ID)
	end := h.events.waitFor(t, "cancelled", isState(ref.Seq, Cancelled)).(StateChanged)
	if end.Reason != "user" {
		t.Errorf("reason %q once tasks/cancel was answered, want the user's %q alone", end.Reason, "user")
	}
	info, _ := h.s.Request(ref).Info()
	if info.Task.Cancel == nil || info.Task.Cancel.Status != TaskCancelled || info.Task.State.Status != TaskCancelled {
		t.Fatalf("cancel answer %+v, task %+v", info.Task.Cancel, info.Task)
	}
	if last := info.Task.Updates[len(info.Task.Updates)-1]; last.Via != TaskViaCancel || last.Late {
		t.Errorf("last update %+v, want the tasks/cancel answer, not late", last)
	}
	noCancelNotification(t, h)
}

// c on the tools/call that created the task cancels the task.
func TestCancellingTheCreatorCancelsItsTask(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, ref := taskCall(t, h, "t9", CallOptions{})
	if err := h.s.Request(c.Ref()).CanCancel(); err != nil {
		t.Fatalf("CanCancel on the creator: %v", err)
	}
	cancelTaskRow(t, h, c.Ref(), "user")
	if info, _ := h.s.Request(ref).Info(); info.State != Cancelling {
		t.Fatalf("task row %v", info.State)
	}
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Completed {
		t.Fatalf("the creator moved to %v", info.State)
	}
}

// A tasks/cancel is not itself cancelled: CancelAll leaves it alone.
func TestTasksCancelIsNotCancelled(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	cancelTaskRow(t, h, ref, "user")
	if n := h.s.CancelAll("all"); n != 0 {
		t.Fatalf("CancelAll cancelled %d requests; the only one pending is the tasks/cancel", n)
	}
	for _, r := range h.s.snapshot() {
		if r.Method == "tasks/cancel" {
			if err := h.s.Request(r.Ref()).CanCancel(); err == nil {
				t.Fatal("tasks/cancel may be cancelled")
			}
		}
	}
}

// Statuses that arrive after the cancel was written are late, like late
// responses: recorded with their delay, never acted on.
func TestTaskStatusAfterCancelIsLate(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	m := cancelTaskRow(t, h, ref, "user")
	h.clock.Advance(300 * time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"working","statusMessage":"still at it"}}`)
	late := h.events.waitFor(t, "late status", isLate(ref.Seq, LateStatus)).(LateArrived)
	if late.Late.AfterCancel != 300*time.Millisecond {
		t.Errorf("late by %v, want 300ms", late.Late.AfterCancel)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"taskId":"t1","status":"cancelled"}}`, m.ID)
	h.events.waitFor(t, "cancelled", isState(ref.Seq, Cancelled))
	h.clock.Advance(time.Second)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed"}}`)
	h.events.waitFor(t, "a second late status", func(e Event) bool {
		u, ok := e.(TaskUpdated)
		return ok && u.Ref.Seq == ref.Seq && u.Update.Status == TaskCompleted
	})
	info, _ := h.s.Request(ref).Info()
	if info.State != Cancelled || info.LateKinds[LateStatus] != 2 || info.Task.State.Status != TaskCancelled {
		t.Fatalf("state %v, late statuses %d, task status %s; a status after a terminal one is not taken",
			info.State, info.LateKinds[LateStatus], info.Task.State.Status)
	}
	var late2 TaskUpdate
	for _, u := range info.Task.Updates {
		if u.Status == TaskCompleted {
			late2 = u
		}
	}
	if !late2.Late || late2.AfterCancel != 1300*time.Millisecond {
		t.Errorf("late update %+v", late2)
	}
}

// A cancel the server refuses because the task had ended (-32602) leaves
// the row cancelling until the task's result shows how it ended.
func TestRefusedTaskCancelEndsAsTheTaskDid(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	m := cancelTaskRow(t, h, ref, "user")
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Cannot cancel task: already in terminal status 'completed'"}}`, m.ID)
	ans := h.events.waitFor(t, "the refusal", func(e Event) bool { _, ok := e.(TaskCancelAnswered); return ok }).(TaskCancelAnswered)
	if !ans.Answer.Refused() {
		t.Fatalf("answer %+v is not a refusal", ans.Answer)
	}
	if info, _ := h.s.Request(ref).Info(); info.State != Cancelling {
		t.Fatalf("after the refusal: %v", info.State)
	}
	c, err := h.s.Request(ref).FetchTaskResult(context.Background(), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req := h.readFrame()
	if req.Method != "tasks/result" || string(req.Params) != `{"taskId":"t1"}` {
		t.Fatalf("got %s %s", req.Method, req.Params)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`, c.ID())
	h.events.waitFor(t, "completed", isState(ref.Seq, Completed))
	info, _ := h.s.Request(ref).Info()
	if !strings.Contains(string(info.Result), "done") {
		t.Fatalf("result %s", info.Result)
	}
}

// A refused cancel of a task whose status is cancelled ends it cancelled.
func TestRefusedCancelOfACancelledTask(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	m := cancelTaskRow(t, h, ref, "user")
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"terminal"}}`, m.ID)
	h.events.waitFor(t, "the refusal", func(e Event) bool { _, ok := e.(TaskCancelAnswered); return ok })
	g, _ := h.s.Request(ref).GetTask(context.Background(), CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"taskId":"t1","status":"cancelled"}}`, g.ID())
	h.events.waitFor(t, "cancelled", isState(ref.Seq, Cancelled))
}

// A tasks/cancel that is never answered still ends the task cancelled.
func TestTaskCancelUnansweredEndsCancelled(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	cancelTaskRow(t, h, ref, "user")
	h.clock.Advance(taskCancelTimeout)
	end := h.events.waitFor(t, "cancelled", isState(ref.Seq, Cancelled)).(StateChanged)
	if !strings.HasPrefix(end.Reason, "user (tasks/cancel: ") {
		t.Errorf("reason %q, want the user's reason and why tasks/cancel failed", end.Reason)
	}
}

// Cancelled before its CreateTaskResult came, a task-augmented call sends
// nothing (no notifications/cancelled): the task is cancelled with
// tasks/cancel once the CreateTaskResult names it.
func TestCancelBeforeTheTaskExistsWaitsForItsID(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "r", "task": map[string]any{}}, CallOptions{})
	h.readFrame()
	if err := h.s.Request(c.Ref()).Cancel("early"); err != nil {
		t.Fatal(err)
	}
	sent := h.wire.written()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"task":{"taskId":"t5","status":"working"}}}`, c.ID())
	m := h.readFrame()
	if m.Method != "tasks/cancel" || string(m.Params) != `{"taskId":"t5"}` {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	// The count may lag the frame just read (it is kept after the write);
	// what must not be is a frame between the cancel and tasks/cancel.
	if w := h.wire.written(); w > sent+1 {
		t.Fatalf("%d frames between the cancel and the CreateTaskResult", w-sent-1)
	}
	if _, st, _ := waitResult(t, c); st != Cancelled {
		t.Fatalf("the call ended %v", st)
	}
	info, _ := h.s.Request(c.Ref()).Info()
	task, _ := h.s.Request(info.TaskRow()).Info()
	if task.State != Cancelling || task.CancelReason != "early" {
		t.Fatalf("task row %v %q", task.State, task.CancelReason)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"taskId":"t5","status":"cancelled"}}`, m.ID)
	h.events.waitFor(t, "cancelled", isState(task.Seq, Cancelled))
	noCancelNotification(t, h)
}

// Progress with the call's token goes on to its task until the task ends
// (MCP 2025-11-25 progress); after its cancel it is late.
func TestTaskKeepsTheProgressToken(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, ref := taskCall(t, h, "t1", CallOptions{})
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":1,"total":3}}`, c.ID())
	h.events.waitFor(t, "progress on the task row", func(e Event) bool {
		p, ok := e.(ProgressUpdated)
		return ok && p.Ref.Seq == ref.Seq
	})
	cancelTaskRow(t, h, ref, "user")
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":2,"total":3}}`, c.ID())
	h.events.waitFor(t, "late progress", isLate(ref.Seq, LateProgress))
}

// A task the server cancels itself ends cancelled, saying so.
func TestServerCancelledTask(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"cancelled","statusMessage":"shutting down"}}`)
	end := h.events.waitFor(t, "cancelled", isState(ref.Seq, Cancelled)).(StateChanged)
	if end.Reason != "the server cancelled the task: shutting down" {
		t.Errorf("reason %q", end.Reason)
	}
}

// tasks/get answers update the task; an error ends it failed.
func TestTaskGetUpdatesAndFails(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	g, err := h.s.Request(ref).GetTask(context.Background(), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := h.readFrame(); m.Method != "tasks/get" || strings.Contains(string(m.Params), "progressToken") {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"taskId":"t1","status":"input_required","statusMessage":"which one?"}}`, g.ID())
	waitResult(t, g)
	info, _ := h.s.Request(ref).Info()
	if info.Task.State.Status != TaskInputRequired || info.Task.Polls != 1 || info.State != Pending {
		t.Fatalf("task %+v polls %d state %v", info.Task, info.Task.Polls, info.State)
	}
	if gi, _ := h.s.Request(g.Ref()).Info(); gi.TaskParent() != ref {
		t.Errorf("tasks/get parent %+v, want the task row", gi.TaskParent())
	}
	g, _ = h.s.Request(ref).GetTask(context.Background(), CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Task not found"}}`, g.ID())
	end := h.events.waitFor(t, "failed", isState(ref.Seq, Failed)).(StateChanged)
	if !strings.Contains(end.Reason, "tasks/get") || !strings.Contains(end.Reason, "Task not found") {
		t.Errorf("reason %q", end.Reason)
	}
}

// A status that comes before the CreateTaskResult naming its task (the
// reference server sends one) is kept in the task's history.
func TestEarlyTaskStatusIsKept(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "r", "task": map[string]any{}}, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"working","statusMessage":"Gathering"}}`)
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"task":{"taskId":"t1","status":"working","statusMessage":"Gathering"}}}`, c.ID())
	waitResult(t, c)
	info, _ := h.s.Request(c.Ref()).Info()
	task, _ := h.s.Request(info.TaskRow()).Info()
	if len(task.Task.Updates) != 2 || task.Task.Updates[0].Via != TaskViaNotification {
		t.Fatalf("updates %+v", task.Task.Updates)
	}
}

// Watch wakes at the task's next status, and Wait returns its end.
func TestWatchWakesOnTaskStatus(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{})
	_, changed, ok := h.s.Request(ref).Watch()
	if !ok {
		t.Fatal("not kept")
	}
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed"}}`)
	waitClosed(t, changed, "Watch's channel closing at a new status")
	r, _ := h.s.Request(ref).FetchTaskResult(context.Background(), CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"boom"}}`, r.ID())
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	info, err := h.s.Request(ref).Wait(ctx)
	if err != nil || info.State != Failed || info.Error.Code != -32603 {
		t.Fatalf("Wait: %v %v %+v", err, info.State, info.Error)
	}
	var res json.RawMessage = info.Result
	if res != nil {
		t.Errorf("result %s", res)
	}
}

// A task row has exactly two moves more than other outgoing requests.
func TestLegalTaskMoves(t *testing.T) {
	states := []State{Pending, Completed, Failed, TimedOut, Cancelling, Cancelled}
	var got []string
	for _, from := range states {
		for _, to := range states {
			if !legalMove(false, from, to) && legalTaskMove(from, to) {
				got = append(got, from.String()+"→"+to.String())
			}
		}
	}
	if want := "pending→cancelled cancelling→completed cancelling→failed"; strings.Join(got, " ") != want {
		t.Fatalf("task moves %v, want %s", got, want)
	}
}

// A CreateTaskResult for a request that asked for no task is flagged, and
// taken as the result: no task row.
func TestUnsolicitedCreateTaskResultIsFlagged(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"task":{"taskId":"t1","status":"working"}}}`, c.ID())
	if _, st, _ := waitResult(t, c); st != Completed {
		t.Fatalf("state %v", st)
	}
	v := h.events.waitFor(t, "the violation", func(e Event) bool {
		v, ok := e.(Violation)
		return ok && v.Kind == ViolationUnsolicitedTask
	}).(Violation)
	if v.Ref.Seq != c.Seq() {
		t.Errorf("violation about seq %d", v.Ref.Seq)
	}
	if info, _ := h.s.Request(c.Ref()).Info(); info.TaskRow().Seq != 0 {
		t.Error("a task row for a task nobody asked for")
	}
	// A tool result that mentions a task is no CreateTaskResult.
	if unsolicitedTask(json.RawMessage(`{"content":[],"task":{"taskId":"x","status":"working"}}`)) {
		t.Error("a result with content taken for a CreateTaskResult")
	}
}

// A task row times out as its call would have, and is cancelled with
// tasks/cancel; so is the task of a call that timed out before its
// CreateTaskResult came, which arrives late.
func TestTaskTimeoutsCancelWithTasksCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{Timeout: time.Second})
	h.clock.Advance(time.Second)
	if m := h.readFrame(); m.Method != "tasks/cancel" || string(m.Params) != `{"taskId":"t1"}` {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	h.events.waitFor(t, "timed out", isState(ref.Seq, TimedOut))

	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "r", "task": map[string]any{}}, CallOptions{Timeout: time.Second})
	h.readFrame()
	h.clock.Advance(time.Second)
	if _, st, _ := waitResult(t, c); st != TimedOut {
		t.Fatalf("call %v", st)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"task":{"taskId":"t2","status":"working"}}}`, c.ID())
	if m := h.readFrame(); m.Method != "tasks/cancel" || string(m.Params) != `{"taskId":"t2"}` {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	info, _ := h.s.Request(c.Ref()).Info()
	task, _ := h.s.Request(info.TaskRow()).Info()
	if task.State != TimedOut || info.LateKinds[LateResponse] != 1 {
		t.Fatalf("task %v, late responses of the call %d", task.State, info.LateKinds[LateResponse])
	}
	noCancelNotification(t, h)
}

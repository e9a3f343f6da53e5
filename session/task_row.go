package session

import (
	"encoding/json"
	"fmt"
	"time"
)

// A task (MCP 2025-11-25) is a row of its own in the request table: the
// request that created it completed with its CreateTaskResult, and the
// task lives on, with its own state, until the server says it ended.
//
//	pending (working, input_required) → completed | failed | timed_out |
//	  cancelled (by the server) | cancelling → cancelled, or, when the
//	  server refuses the cancel because the task had ended, → completed |
//	  failed
//
// Its statuses come from notifications/tasks/status and from the answers
// to tasks/get and tasks/cancel; its result from tasks/result. The rows
// of those requests name the task row as their Parent, and their answers
// are applied here, under Session.mu, in the order they were read.
// Everything after the cancel was written is late, as for any request.

// ErrNotATask means the handle names a request that is not a task.
var ErrNotATask = fmt.Errorf("not a task")

// taskCreated makes the task row for parent, whose response result may be
// a CreateTaskResult; it returns nil when it is none. Callers hold s.mu.
func (s *Session) taskCreated(parent *request, result json.RawMessage, frame []byte, at time.Time) *request {
	st, ok, ext, err := createdTask(result)
	if !ok {
		return nil
	}
	if err != nil {
		s.violate(parent, ViolationMalformedTask, []byte(parent.info.ID.raw), frame,
			"the CreateTaskResult of request "+parent.info.ID.String()+" is unusable: "+err.Error())
		return nil
	}
	if s.table.tasks[st.ID] != nil {
		s.violate(parent, ViolationMalformedTask, []byte(parent.info.ID.raw), frame,
			"the server created task "+clipText(st.ID, 40)+" twice; task ids must be unique")
		return nil
	}
	now := s.clock.Now()
	ti := &TaskInfo{Parent: parent.info.Ref(), State: st, Extension: ext}
	t := &request{
		info: rowInfo{ID: parent.info.ID, Method: parent.info.Method, Tool: parent.info.Tool,
			Params: parent.info.Params, State: Pending, Started: now, TaskID: st.ID, Task: ti},
		token:   parent.token, // progress goes on until the task ends
		written: true,
	}
	if early, ok := s.early[st.ID]; ok {
		delete(s.early, st.ID)
		ti.Updates = append(ti.Updates, early)
	}
	ti.Updates = append(ti.Updates, TaskUpdate{At: at, Via: TaskViaCreated, Status: st.Status, StatusMessage: st.StatusMessage})
	ti.UpdateCount = len(ti.Updates)
	s.table.add(t)
	if parent.task == nil {
		parent.task = &taskLinks{} // a task the extension's server chose to make
	}
	parent.task.row = t
	parent.editTask().Row = t.info.Ref()
	s.startTimers(t, inherited(parent))
	if len(s.subs) > 0 {
		s.emit(RequestStarted{Info: t.snapshot()})
	}
	s.changed(parent)
	if st.Status == TaskCancelled {
		s.endTaskCancelledByServer(t, st)
	}
	return t
}

// inherited are the timeouts a task row takes from the request that
// created it.
func inherited(parent *request) CallOptions {
	o := CallOptions{Timeout: parent.timeout(), ResetTimeoutOnProgress: parent.resetOnProgress, MaxTimeout: parent.maxTimeout()}
	if o.MaxTimeout == 0 {
		o.MaxTimeout = -1 // it had none
	}
	return o
}

// rememberEarly keeps the status of a task not yet known: a server may
// announce a task before the CreateTaskResult that names it. Callers hold
// s.mu.
func (s *Session) rememberEarly(st TaskState, at time.Time) {
	if len(s.early) >= maxEarlyStatuses {
		clear(s.early)
	}
	if s.early == nil {
		s.early = map[string]TaskUpdate{}
	}
	s.early[st.ID] = TaskUpdate{At: at, Via: TaskViaNotification, Status: st.Status, StatusMessage: st.StatusMessage}
}

// handleTaskStatus applies notifications/tasks/status to its task row.
func (s *Session) handleTaskStatus(params json.RawMessage, frame []byte, at time.Time) {
	st, err := ParseTaskState(params)
	if err != nil {
		s.noise(frame, 0, NoiseNotJSONRPC, "malformed notifications/tasks/status: "+err.Error(), at)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table.tasks[st.ID]
	if t == nil {
		s.rememberEarly(st, at)
		return
	}
	s.applyTaskStatus(t, st, TaskViaNotification, at, frame)
}

// applyTaskStatus records a status of task row t. While t is pending it
// acts: the timeout restarts (the server is alive), and a task the server
// cancelled ends cancelled. After the cancel it is late (but for an
// extension task's polls while cancelling), and acts only when the
// cancel was refused: the task's own terminal status ends it.
// Callers hold s.mu.
func (s *Session) applyTaskStatus(t *request, st TaskState, via TaskVia, at time.Time, frame []byte) {
	u := TaskUpdate{At: at, Via: via, Status: st.Status, StatusMessage: st.StatusMessage}
	state := t.info.State
	// An extension task is polled on while its cooperative cancel plays
	// out: those statuses are how it turns out, asked for, not late.
	followUp := t.info.Task.Extension && state == Cancelling && via == TaskViaGet
	if state != Pending && via != TaskViaCancel && !followUp {
		u.Late, u.AfterCancel = true, t.afterCancel(at)
		s.late(t, LateStatus, at, frame)
	}
	ti := t.editTask()
	if via == TaskViaGet {
		ti.Polls++
	}
	prev := ti.State
	if !TaskStatusTerminal(prev.Status) {
		ti.State = st
	} else if ti.Extension && st.Status != prev.Status && !u.Late {
		why := "the task went back from " + clipText(prev.Status, 40) + " to " + clipText(st.Status, 40) +
			" (" + via.String() + "); a terminal status is final"
		s.violate(t, ViolationMalformedTask, []byte(t.info.ID.raw), frame, why)
		if state == Pending {
			defer s.failTask(t, why, nil, frame, at)
		}
	}
	if u.Late || prev.Status != st.Status || prev.StatusMessage != st.StatusMessage {
		ti.UpdateCount++
		if len(ti.Updates) < maxTaskUpdates {
			ti.Updates = append(ti.Updates, u)
		}
		if len(s.subs) > 0 {
			s.emit(TaskUpdated{Ref: t.info.Ref(), Update: u, Task: st})
		}
	}
	switch {
	case state == Pending:
		// A live task's status restarts the timeout, and so does its
		// reaching a terminal status: from then on the timeout bounds
		// the wait for its result, which polls of the ended task (or a
		// server repeating its status) must not put off.
		if t.timers != nil && t.timers.timer != nil && !TaskStatusTerminal(prev.Status) {
			t.timers.timer.Reset(t.timers.timeout)
		}
		if st.Status == TaskCancelled {
			s.endTaskCancelledByServer(t, st)
		}
	case state == Cancelling && ti.Cancel.Refused() && st.Status == TaskCancelled:
		s.setState(t, Cancelled, t.info.m().CancelReason)
	}
	s.changed(t)
}

// endTaskCancelledByServer ends a pending task row that the server says
// is cancelled, though we did not ask. Callers hold s.mu.
func (s *Session) endTaskCancelledByServer(t *request, st TaskState) {
	reason := "the server cancelled the task"
	if st.StatusMessage != "" {
		reason += ": " + st.StatusMessage
	}
	t.info.w().CancelReason = reason
	s.setState(t, Cancelled, reason)
}

// taskOpEnded applies what came of a tasks/get, tasks/result or
// tasks/cancel to the task row it was sent for, once that request is
// final. Callers hold s.mu.
func (s *Session) taskOpEnded(op *request) {
	t := op.forTask()
	at := s.arrival // the answer's, when one ended it
	if at.IsZero() {
		at = op.info.Ended
	}
	switch op.info.Method {
	case "tasks/get":
		s.taskGot(t, op, at)
	case "tasks/result":
		s.taskResult(t, op, at)
	case "tasks/cancel":
		s.taskCancelAnswered(t, op, at)
	}
}

// taskGot applies the answer to a tasks/get. An error answer ends a
// pending task failed: the server no longer knows it (expired, deleted)
// or cannot say. Callers hold s.mu.
func (s *Session) taskGot(t *request, op *request, at time.Time) {
	switch op.info.State {
	case Completed:
		st, err := ParseTaskState(op.info.Result)
		if err == nil && st.ID != t.info.TaskID {
			err = fmt.Errorf("it describes task %s, not %s", clipText(st.ID, 40), clipText(t.info.TaskID, 40))
		}
		if err != nil {
			why := "the answer to tasks/get is not the task: " + err.Error()
			s.violate(t, ViolationMalformedTask, []byte(op.info.ID.raw), op.info.Result, why)
			s.failTask(t, why, nil, op.info.Result, at)
			return
		}
		if t.info.Task.Extension {
			s.extensionTaskGot(t, st, op, at)
			return
		}
		s.applyTaskStatus(t, st, TaskViaGet, at, op.info.Result)
	case Failed:
		if op.info.Error != nil {
			s.failTask(t, "tasks/get: "+op.info.Error.Error(), op.info.Error, nil, at)
		}
	}
}

// failTask ends a pending task row failed; after its cancel the error is
// late. Callers hold s.mu.
func (s *Session) failTask(t *request, why string, rpcErr *RPCError, data []byte, at time.Time) {
	switch t.info.State {
	case Pending:
		t.info.Error, t.info.w().Failure = rpcErr, why
		s.setState(t, Failed, why)
	default:
		if watched(t.info.State) {
			s.late(t, LateError, at, data)
		}
	}
}

// taskResult applies the answer to tasks/result: what the request would
// have answered, so the task row's result or error. Callers hold s.mu.
func (s *Session) taskResult(t *request, op *request, at time.Time) {
	acts := t.info.State == Pending || (t.info.State == Cancelling && t.info.Task.Cancel.Refused())
	switch op.info.State {
	case Completed:
		if acts {
			t.info.Result = op.info.Result
			s.setState(t, Completed, "")
			return
		}
		if watched(t.info.State) {
			s.late(t, LateResponse, at, op.info.Result)
		}
	case Failed:
		if op.info.Error == nil {
			return // no answer: the connection went
		}
		if acts {
			t.info.Error = op.info.Error
			s.setState(t, Failed, op.info.Error.Error())
			return
		}
		if watched(t.info.State) {
			s.late(t, LateError, at, nil)
		}
	}
}

// taskCancelAnswered applies the answer to tasks/cancel. A task the server
// cancelled ends cancelled; one whose cancel it refused as already ended
// (-32602) stays cancelling until its terminal status or result shows how
// it ended; any other failure ends it cancelled, saying why, as an
// ignored notifications/cancelled would. Callers hold s.mu.
func (s *Session) taskCancelAnswered(t *request, op *request, at time.Time) {
	if t.info.Task.Extension {
		s.extensionCancelAnswered(t, op, at)
		return
	}
	a := TaskCancelAnswer{At: at}
	var st TaskState
	var stErr error
	if op.info.State == Completed {
		st, stErr = ParseTaskState(op.info.Result)
		a.Status, a.StatusMessage = st.Status, st.StatusMessage
		if stErr != nil {
			a.Failure = "the answer is not the task: " + stErr.Error()
		}
	} else {
		a.failedBy(op)
	}
	t.editTask().Cancel = &a
	if len(s.subs) > 0 {
		s.emit(TaskCancelAnswered{Ref: t.info.Ref(), Answer: a})
	}
	if op.info.State == Completed && stErr == nil {
		s.applyTaskStatus(t, st, TaskViaCancel, at, op.info.Result)
	}
	if t.info.State != Cancelling {
		s.changed(t)
		return
	}
	reason := t.info.m().CancelReason
	switch {
	case op.info.State == Completed && stErr == nil && st.Status == TaskCancelled:
	case op.info.State == Completed && stErr == nil:
		reason += " (tasks/cancel answered status " + clipText(st.Status, 40) + ", not cancelled)"
	case a.Refused():
		if t.info.Task.State.Status == TaskCancelled {
			break
		}
		// Its terminal status and result come from tasks/get and
		// tasks/result; should they not, it ends cancelled in the end.
		s.whileStillCancelling(t, func() {
			s.setState(t, Cancelled, t.info.m().CancelReason+" (tasks/cancel refused: "+t.info.Task.Cancel.Error.Error()+")")
		})
		s.changed(t)
		return
	default:
		reason += a.failureNote()
	}
	s.setState(t, Cancelled, reason)
}

// whileStillCancelling runs end, under s.mu, if task row t is still
// cancelling taskCancelTimeout from now: the answer to its tasks/cancel
// left it to tasks/get to say how the task ended, and nothing did.
func (s *Session) whileStillCancelling(t *request, end func()) {
	s.clock.AfterFunc(taskCancelTimeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if t.info.State == Cancelling {
			end()
		}
	})
}

// failureNote is what a tasks/cancel that failed adds to the reason its
// task ended cancelled: the server's error, else how the request failed.
func (a *TaskCancelAnswer) failureNote() string {
	if a.Error != nil {
		return " (tasks/cancel: " + a.Error.Error() + ")"
	}
	return " (tasks/cancel: " + a.Failure + ")"
}

// watched reports whether traffic for a request in state st is late: it
// was cancelled or timed out.
func watched(st State) bool { return st == Cancelling || st == Cancelled || st == TimedOut }

// changed wakes whoever watches r (Request.Watch). Callers hold s.mu.
func (s *Session) changed(r *request) {
	if ch, ok := s.watchers[r]; ok {
		close(ch)
		delete(s.watchers, r)
	}
}

// failedBy says why op, a tasks/cancel that did not complete, failed:
// the server's error, no answer in time, or how it ended.
func (a *TaskCancelAnswer) failedBy(op *request) {
	switch op.info.State {
	case Failed:
		a.Error, a.Failure = op.info.Error, op.info.m().Failure
	case TimedOut:
		a.Failure = "no answer within " + taskCancelTimeout.String()
	default:
		a.Failure = op.info.State.String()
	}
}

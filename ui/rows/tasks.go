package rows

import "github.com/mcpoke/mcpoke/session"

// rowTaskUpdates bounds the statuses one task row keeps.
const rowTaskUpdates = 200

// isPoll reports whether a request is a tasks/get mcpoke sent for a task
// row: the task row counts it instead of showing it.
func isPoll(info session.RequestInfo) bool {
	return info.Method == "tasks/get" && info.TaskParent().Seq != 0 && !info.Incoming
}

// isTask reports whether the row is a task.
func (r *Row) IsTask() bool { return r.TaskID != "" }

// taskStatus is the task's status as the server last gave it; "" when
// the row is no task.
func (r *Row) TaskStatus() string {
	if r.TaskState == nil {
		return ""
	}
	return r.TaskState.Status
}

// cancelRefused: the server refused the row's tasks/cancel as the task
// had already ended (-32602).
func (r *Row) CancelRefused() bool { return r.TaskCancel.Refused() }

// taskUpdated applies a status the session took for a task row.
func (s *Store) taskUpdated(e session.TaskUpdated) *Row {
	r := s.bySeq[e.Ref.Seq]
	if r == nil {
		return nil
	}
	if r.TaskState == nil || !session.TaskStatusTerminal(r.TaskState.Status) {
		t := e.Task
		r.TaskState = &t
	}
	if len(r.TaskUpdates) < rowTaskUpdates {
		r.TaskUpdates = append(r.TaskUpdates, e.Update)
	}
	if e.Update.Late && e.Update.Status != session.TaskCancelled {
		r.LateStatusOdd++
	}
	r.Touch()
	return r
}

// taskCancelAnswered records the server's answer to the row's tasks/cancel.
func (s *Store) taskCancelAnswered(e session.TaskCancelAnswered) *Row {
	r := s.bySeq[e.Ref.Seq]
	if r == nil {
		return nil
	}
	a := e.Answer
	r.TaskCancel = &a
	r.Touch()
	return r
}

// taskStarted fills a new task row from the session's first snapshot and
// marks the row that created it.
func (s *Store) taskStarted(r *Row, info session.RequestInfo) {
	r.TaskID, r.Extension = info.TaskID, info.Task.Extension
	t := info.Task.State
	r.TaskState = &t
	r.TaskUpdates = append(r.TaskUpdates, info.Task.Updates...)
	if p := s.bySeq[r.Parent.Seq]; p != nil {
		p.CreatedTask = info.Seq
		p.Touch()
	}
}

// polled counts a tasks/get sent for a task row.
func (s *Store) polled(info session.RequestInfo) {
	if r := s.bySeq[info.TaskParent().Seq]; r != nil {
		r.Polls++
		r.Touch()
	}
}

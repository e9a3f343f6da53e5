package rows

import "github.com/mcpoke/mcpoke/session"

// A task (MCP 2025-11-25) is a row of its own: the tools/call that created
// it completed with its CreateTaskResult, and the task row lives on with
// the server's status until it ends. The session applies every status and
// the rules of its cancellation (tasks/cancel); the rows keep what the
// screen shows. Polls (tasks/get) get no rows: the task row counts them.

// rowTaskUpdates bounds the statuses one task row keeps.
const rowTaskUpdates = 200

// isPoll reports whether a request is a tasks/get mcpoke sent for a task
// row: the task row counts it instead of showing it.
func isPoll(info session.RequestInfo) bool {
	return info.Method == "tasks/get" && info.TaskParent().Seq != 0 && !info.Incoming
}

// IsTask reports whether the row is a task.
func (r *Row) IsTask() bool { return r.Task != nil && r.Task.ID != "" }

// TaskStatus is the task's status as the server last gave it; "" when
// the row is no task.
func (r *Row) TaskStatus() string {
	if r.Task == nil || r.Task.State == nil {
		return ""
	}
	return r.Task.State.Status
}

// CancelRefused reports whether the server refused the row's tasks/cancel
// as the task had already ended (-32602).
func (r *Row) CancelRefused() bool { return r.Task != nil && r.Task.Cancel.Refused() }

// task is r.Task, made when it is the first news of one.
func (r *Row) task() *Task {
	return part(&r.Task)
}

// taskUpdated applies a status the session took for a task row.
func (s *Store) taskUpdated(e session.TaskUpdated) *Row {
	r := s.bySeq[e.Ref.Seq]
	if r == nil {
		return nil
	}
	t := r.task()
	if t.State == nil || !session.TaskStatusTerminal(t.State.Status) {
		st := e.Task
		t.State = &st
	}
	if len(t.Updates) < rowTaskUpdates {
		t.Updates = append(t.Updates, e.Update)
	}
	if e.Update.Late && e.Update.Status != session.TaskCancelled {
		part(&r.Late).OddStatuses++
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
	r.task().Cancel = &a
	r.Touch()
	return r
}

// taskStarted fills a new task row from the session's first snapshot and
// marks the row that created it.
func (s *Store) taskStarted(r *Row, info session.RequestInfo) {
	t := r.task()
	t.ID, t.Extension = info.TaskID, info.Task.Extension
	st := info.Task.State
	t.State = &st
	t.Updates = append(t.Updates, info.Task.Updates...)
	if p := s.bySeq[t.Parent.Seq]; p != nil {
		p.task().Created = info.Seq
		p.Touch()
	}
}

// polled counts a tasks/get sent for a task row.
func (s *Store) polled(info session.RequestInfo) {
	if r := s.bySeq[info.TaskParent().Seq]; r != nil {
		r.task().Polls++
		r.Touch()
	}
}

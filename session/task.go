package session

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Task statuses (MCP 2025-11-25). completed, failed and cancelled are
// terminal: a task never leaves them.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskStatusTerminal reports whether a task in status can no longer change.
func TaskStatusTerminal(status string) bool {
	return status == TaskCompleted || status == TaskFailed || status == TaskCancelled
}

// TaskState is a task as the server described it last (the Task object of
// MCP 2025-11-25). Its strings are the server's, untrusted.
type TaskState struct {
	ID            string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt,omitempty"`
	LastUpdatedAt string `json:"lastUpdatedAt,omitempty"`
	// TTL is how long after its creation the server keeps the task, in
	// milliseconds; nil when null (unlimited) or not given.
	TTL *float64 `json:"ttl,omitempty"`
	// PollInterval is how often the server would like tasks/get, in
	// milliseconds; nil when not given.
	PollInterval *float64 `json:"pollInterval,omitempty"`
}

// PollEvery is the server's poll interval; 0 when it gave none.
func (t TaskState) PollEvery() time.Duration {
	if t.PollInterval == nil || *t.PollInterval <= 0 {
		return 0
	}
	return time.Duration(*t.PollInterval * float64(time.Millisecond))
}

// ParseTaskState reads a Task object: taskId and status must be strings,
// taskId not empty.
func ParseTaskState(raw json.RawMessage) (TaskState, error) {
	var t TaskState
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return TaskState{}, errors.New("a task must be an object")
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return TaskState{}, fmt.Errorf("malformed task: %s", jsonProblem(err))
	}
	if t.ID == "" {
		return TaskState{}, errors.New("the task has no taskId")
	}
	if t.Status == "" {
		return TaskState{}, errors.New("the task has no status")
	}
	if t.TTL == nil || t.PollInterval == nil {
		// The tasks extension (2026-07-28) names them ttlMs and
		// pollIntervalMs; a Task object has one form or the other.
		var ms struct {
			TTL          *float64 `json:"ttlMs"`
			PollInterval *float64 `json:"pollIntervalMs"`
		}
		if json.Unmarshal(raw, &ms) == nil {
			t.TTL = cmp.Or(t.TTL, ms.TTL)
			t.PollInterval = cmp.Or(t.PollInterval, ms.PollInterval)
		}
	}
	return t, nil
}

// knownTaskStatus reports whether status is one the spec defines.
func knownTaskStatus(status string) bool {
	switch status {
	case TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled:
		return true
	}
	return false
}

// createdTask reads the task of a CreateTaskResult: in the tasks
// extension (resultType "task", ext true) its fields are the result's own;
// in 2025-11-25 it is {"task": {...}}. ok is false when the result is no
// task: the server ran the request as a plain one, as it may.
func createdTask(result json.RawMessage) (t TaskState, ok, ext bool, err error) {
	if resultTypeOf(result) == ResultTask {
		t, err = ParseTaskState(result)
		if err == nil && !knownTaskStatus(t.Status) {
			err = fmt.Errorf("status %q is not one the spec defines", clipText(t.Status, 40))
		}
		return t, true, true, err
	}
	t, ok, err = createdTask2025(result)
	return t, ok, false, err
}

// createdTask2025 reads {"task": {...}} (MCP 2025-11-25).
func createdTask2025(result json.RawMessage) (t TaskState, ok bool, err error) {
	var r struct {
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(result, &r) != nil || len(r.Task) == 0 || string(r.Task) == "null" {
		return TaskState{}, false, nil
	}
	t, err = ParseTaskState(r.Task)
	return t, true, err
}

// unsolicitedTask reports whether a result is a CreateTaskResult (a task
// with an id, and no content of a result): what a server must not send
// to a request that did not ask for a task.
func unsolicitedTask(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte(`"task"`)) {
		return false
	}
	var r struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil || r.Content != nil {
		return false
	}
	_, ok, err := createdTask2025(result)
	return ok && err == nil
}

// TaskVia says which message brought a task's status.
type TaskVia uint8

const (
	// TaskViaCreated: the CreateTaskResult that answered the request.
	TaskViaCreated TaskVia = iota
	// TaskViaGet: the answer to a tasks/get.
	TaskViaGet
	// TaskViaNotification: notifications/tasks/status.
	TaskViaNotification
	// TaskViaCancel: the answer to tasks/cancel.
	TaskViaCancel
)

var taskViaNames = [...]string{"created", "tasks/get", "notifications/tasks/status", "tasks/cancel"}

// String implements fmt.Stringer with the names used in JSON output.
func (v TaskVia) String() string { return enumName(taskViaNames[:], v) }

// MarshalText implements encoding.TextMarshaler.
func (v TaskVia) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// TaskUpdate is one status of a task as it arrived. A task row keeps the
// updates that changed its status or status message, and every late one.
type TaskUpdate struct {
	At            time.Time
	Via           TaskVia
	Status        string
	StatusMessage string
	// Late: it arrived after the task's cancellation was written (or its
	// timeout), AfterCancel later. It is recorded, never acted on, except
	// that a task whose cancel was refused ends in its terminal status.
	Late        bool
	AfterCancel time.Duration
}

// TaskInfo is what a row has to do with tasks. The session replaces it
// whole on every change, so a snapshot's never changes under its reader.
type TaskInfo struct {
	// Parent names the row this one belongs to: for a task row, the
	// request that created it; for tasks/get, tasks/result and
	// tasks/cancel sent for a task, that task's row. Seq 0: none.
	Parent Ref
	// Row names the task row a request created with its
	// CreateTaskResult. Seq 0: none.
	Row Ref
	// State is, on a task row, the task as the server described it last
	// (a status after a terminal one is not taken).
	State TaskState
	// Updates keeps the first maxTaskUpdates statuses that changed the
	// task's status or message, and the late ones; UpdateCount counts
	// them all. Polls counts the answers to tasks/get.
	Updates     []TaskUpdate
	UpdateCount int
	Polls       int
	// Cancel is what came of tasks/cancel; nil until it was answered (or
	// will not be).
	Cancel *TaskCancelAnswer
	// Extension: the task came by the tasks extension of 2026-07-28
	// (io.modelcontextprotocol/tasks): its result comes with tasks/get,
	// input goes with tasks/update, and tasks/cancel is only acknowledged.
	Extension bool
	// Outcome says, on an extension task whose cancel was sent, how the
	// task really ended: "cancel acknowledged; the task ended completed:
	// …". "" until it ended.
	Outcome string
	// InputRequests are, on an extension task waiting for input, the
	// inputRequests of its last tasks/get, as sent; nil otherwise.
	InputRequests json.RawMessage
}

// TaskCancelAnswer is what came of tasks/cancel.
type TaskCancelAnswer struct {
	At time.Time
	// Status and StatusMessage are the task's in a successful answer.
	Status        string
	StatusMessage string
	// Error is the server's refusal; -32602 (Refused) means the task had
	// already ended, as the spec asks a server to answer.
	Error *RPCError
	// Failure says why no answer came (timed out, connection gone).
	Failure string
	// Acknowledged: the server answered with an empty result, the tasks
	// extension's acknowledgement. Cancelling is cooperative there: how
	// the task ended comes later, from tasks/get.
	Acknowledged bool
	// Extension: the answer is the tasks extension's, where -32602 means
	// the task is unknown rather than already ended.
	Extension bool
}

// Refused reports whether the server refused to cancel a task that had
// already reached a terminal status (-32602, MCP 2025-11-25).
func (a *TaskCancelAnswer) Refused() bool {
	return a != nil && !a.Extension && a.Error != nil && a.Error.Code == CodeInvalidParams
}

// TaskUpdated reports a task row got a status from the server (Update.Late when
// after its cancel). Task is the whole task as the server sent it.
type TaskUpdated struct {
	Ref    Ref
	Update TaskUpdate
	Task   TaskState
}

// TaskCancelAnswered reports the server answered tasks/cancel for a task row, or
// no answer will come.
type TaskCancelAnswered struct {
	Ref    Ref
	Answer TaskCancelAnswer
}

func (TaskUpdated) event()        {}
func (TaskCancelAnswered) event() {}

// Limits on what one task row keeps.
const (
	maxTaskUpdates = 1000
	// maxEarlyStatuses bounds the statuses kept for tasks not yet known:
	// a server may announce a task before its CreateTaskResult.
	maxEarlyStatuses = 64
)

// taskAugmented reports whether request params carry a task member: the
// request asks the peer to run it as a task.
func taskAugmented(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	if t := bytes.TrimSpace(params); len(t) == 0 || t[0] != '{' || json.Unmarshal(params, &p) != nil {
		return false
	}
	return len(p.Task) > 0 && string(p.Task) != "null"
}

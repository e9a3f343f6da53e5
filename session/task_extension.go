package session

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks): a
// server may answer any tools/call of a client that declared it with a
// CreateTaskResult (resultType "task", the task's fields at top level).
// The task row is then followed with tasks/get alone: its answer carries
// the result (completed), the JSON-RPC error (failed) or the
// inputRequests (input_required, answered with tasks/update). tasks/cancel
// is only acknowledged (an empty result): cancelling is cooperative, and
// the row stays cancelling until tasks/get shows how the task really
// ended.

// refusedTask says why a CreateTaskResult is not taken for r: the session
// did not declare the extension, or r is no tools/call. Callers hold s.mu.
func (s *Session) refusedTask(r *request) string {
	id := r.info.ID.String()
	if s.era2026 == nil || !s.era2026.tasks {
		return "the server answered request " + id + " with a CreateTaskResult (resultType \"task\"), but mcpoke did not declare the tasks extension (" +
			ExtensionTasks + ") on it, and a server MUST NOT send one then; the response is invalid"
	}
	return "the server answered " + clipText(r.info.Method, 40) + " " + id + " with a CreateTaskResult (resultType \"task\"), " +
		"but the tasks extension allows one only for tools/call; the response is invalid"
}

// unusableTask says why a CreateTaskResult of the extension cannot be
// followed, "" when it can.
func unusableTask(result json.RawMessage) string {
	if _, _, _, err := createdTask(result); err != nil {
		return err.Error()
	}
	return ""
}

// extensionTask is what a tasks/get of the extension answers besides the
// Task: the status's own payload.
type extensionTask struct {
	Result        json.RawMessage `json:"result"`
	Error         json.RawMessage `json:"error"`
	InputRequests json.RawMessage `json:"inputRequests"`
}

// extensionTaskGot applies the answer to a tasks/get of an extension
// task: the status, and on a terminal one the row's end, with the result
// or error the answer carries. A row cancelling ends too, by what the
// task really became: cancelling is cooperative. Callers hold s.mu.
func (s *Session) extensionTaskGot(t *request, st TaskState, op *request, at time.Time) {
	var x extensionTask
	_ = json.Unmarshal(op.info.Result, &x) // ParseTaskState read it already
	bad := func(why string) {
		s.violate(t, ViolationMalformedTask, []byte(op.info.ID.raw), op.info.Result, why)
		s.failTask(t, why, nil, op.info.Result, at)
	}
	switch {
	case !knownTaskStatus(st.Status):
		bad("tasks/get answered status " + clipText(st.Status, 40) + ", which is not one the spec defines")
		return
	case st.Status == TaskCompleted && !isObject(x.Result):
		bad("tasks/get answered completed without a result object (the extension requires one)")
		return
	case st.Status == TaskFailed && !isObject(x.Error):
		bad("tasks/get answered failed without an error object (the extension requires the JSON-RPC error)")
		return
	}
	ti := t.editTask()
	ti.InputRequests = nil
	if st.Status == TaskInputRequired && isObject(x.InputRequests) {
		ti.InputRequests = append(json.RawMessage(nil), x.InputRequests...)
	}
	s.applyTaskStatus(t, st, TaskViaGet, at, op.info.Result)
	if t.info.State.Final() || !TaskStatusTerminal(st.Status) {
		return
	}
	s.endExtensionTask(t, st, x)
}

// endExtensionTask ends row t by the terminal status st of its task.
// Callers hold s.mu.
func (s *Session) endExtensionTask(t *request, st TaskState, x extensionTask) {
	reason := ""
	if t.info.State == Cancelling {
		reason = "the task ended " + st.Status
		if a := t.info.Task.Cancel; a != nil && a.Acknowledged {
			reason = "cancel acknowledged; " + reason
		}
		if st.Status != TaskCancelled {
			reason += ": the server did not stop it (cancelling a task is cooperative)"
		}
		t.editTask().Outcome = reason
	}
	switch st.Status {
	case TaskCompleted:
		t.info.Result = append(json.RawMessage(nil), x.Result...)
		t.info.ResultType = ResultComplete
		s.setState(t, Completed, reason)
	case TaskFailed:
		e, err := parseRPCError(x.Error)
		if err != nil {
			e = &RPCError{Code: CodeInternalError, Message: "unreadable error: " + err.Error()}
		}
		t.info.Error = e
		if reason == "" {
			reason = e.Error()
		}
		s.setState(t, Failed, reason)
	case TaskCancelled:
		if t.info.State == Cancelling {
			s.setState(t, Cancelled, reason)
		}
	}
}

// extensionCancelAnswered applies the answer to tasks/cancel of an
// extension task: an acknowledgement leaves the row cancelling until
// tasks/get shows how the task ended (or taskCancelTimeout passes); an
// error or no answer ends it cancelled, saying why. Callers hold s.mu.
func (s *Session) extensionCancelAnswered(t *request, op *request, at time.Time) {
	a := TaskCancelAnswer{At: at, Extension: true}
	if op.info.State == Completed {
		a.Acknowledged = true
	} else {
		a.failedBy(op)
	}
	t.editTask().Cancel = &a
	if len(s.subs) > 0 {
		s.emit(TaskCancelAnswered{Ref: t.info.Ref(), Answer: a})
	}
	if t.info.State != Cancelling {
		s.changed(t)
		return
	}
	reason := t.info.m().CancelReason
	switch {
	case a.Acknowledged:
		s.whileStillCancelling(t, func() {
			why := "cancel acknowledged; the task had not ended " + taskCancelTimeout.String() + " later (last status " +
				clipText(t.info.Task.State.Status, 40) + ")"
			t.editTask().Outcome = why
			s.setState(t, Cancelled, why)
		})
		s.changed(t)
		return
	default:
		reason += a.failureNote()
	}
	s.setState(t, Cancelled, reason)
}

// UpdateTask sends tasks/update for the extension task row the handle
// names, with inputResponses: the answers to its inputRequests. The
// server acknowledges with an empty result; the task's next status comes
// with tasks/get.
func (h Request) UpdateTask(ctx context.Context, responses map[string]json.RawMessage, opts CallOptions) (*Call, error) {
	return h.taskRequest(ctx, "tasks/update", map[string]any{"inputResponses": responses}, opts)
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// parseRPCError reads a JSON-RPC error object: its code must be an
// integer.
func parseRPCError(raw json.RawMessage) (*RPCError, error) {
	var e RPCError
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

package demo

import (
	"context"
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The demo's side of the tasks extension of 2026-07-28
// (io.modelcontextprotocol/tasks): in a modern request, the server
// decides. A tool that requires a task (research) answers a client that
// declared the extension with a CreateTaskResult (resultType "task", the
// task's fields at top level) and runs on; tasks/get answers the task
// with its result or error inlined; tasks/cancel is acknowledged with an
// empty result, the work stopping as it can. A client that did not
// declare the extension gets -32021 for such a tool. tasks/result and
// tasks/list are not part of the extension.

// extensionCapability is what server/discover declares.
var extensionCapability = map[string]any{session.ExtensionTasks: map[string]any{}}

// runAsExtensionTask answers a modern tools/call of t: as a task when t
// requires one. handled is false for a plain call.
func (srv *server) runAsExtensionTask(in *session.Incoming, t *tool, args json.RawMessage, meta mcp.RequestMeta) (res any, err error, handled bool) {
	if t.TaskSupport() != mcp.TaskRequired {
		return nil, nil, false
	}
	if !mcp.ParseClientCapabilities(meta.Capabilities).FollowTasks {
		return nil, missingExtension(t.Name + " runs only as a task"), true
	}
	state := srv.tasks.create(in, taskDefaultTTL, true, func(ctx context.Context) (any, error) { return t.run(ctx, srv, in, args) })
	srv.log.Info("task created", "id", in.ID.String(), "tool", t.Name, "task", state.ID, "by", session.ExtensionTasks)
	return extensionTask(state, nil), nil, true
}

// missingExtension is MissingRequiredClientCapability (-32021) for a
// request that needs the tasks extension its client did not declare.
func missingExtension(what string) *session.RPCError {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": extensionCapability}})
	return &session.RPCError{Code: session.CodeMissingClientCapability,
		Message: what + ": declare the " + session.ExtensionTasks + " extension in clientCapabilities", Data: data}
}

// extensionMethod serves tasks/get, tasks/update or tasks/cancel: in a
// modern request, only to a client that declared the extension, whose
// methods they are.
func extensionMethod(method string, h session.Handler) session.Handler {
	return func(ctx context.Context, in *session.Incoming) (any, error) {
		if meta := mcp.ReadRequestMeta(in.Params); meta.Version != "" && !mcp.ParseClientCapabilities(meta.Capabilities).FollowTasks {
			return nil, missingExtension(method + " is a method of the tasks extension")
		}
		return h(ctx, in)
	}
}

// extensionTask is a Task of the extension: ttlMs and pollIntervalMs,
// with more (resultType, result, error) added by the caller.
func extensionTask(st session.TaskState, more map[string]any) map[string]any {
	out := map[string]any{"resultType": session.ResultTask, "taskId": st.ID, "status": st.Status,
		"createdAt": st.CreatedAt, "lastUpdatedAt": st.LastUpdatedAt, "ttlMs": st.TTL, "pollIntervalMs": st.PollInterval}
	if st.StatusMessage != "" {
		out["statusMessage"] = st.StatusMessage
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// isModern reports whether task id was created by the extension.
func (ts *taskStore) isModern(id string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.tasks[id]
	return t != nil && t.modern
}

// modernRequest reports whether in is a modern request.
func modernRequest(in *session.Incoming) bool { return mcp.ReadRequestMeta(in.Params).Version != "" }

// getExtensionTask answers a modern tasks/get: the task, with its result
// (completed) or JSON-RPC error (failed) inlined.
func (ts *taskStore) getExtensionTask(task *demoTask) (any, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	more := map[string]any{"resultType": session.ResultComplete}
	switch task.state.Status {
	case session.TaskCompleted:
		more["result"] = task.result
	case session.TaskFailed:
		e := &session.RPCError{Code: session.CodeInternalError, Message: "the task failed"}
		if re, ok := task.err.(*session.RPCError); ok {
			e = re
		} else if task.err != nil {
			e.Message = task.err.Error()
		}
		more["error"] = e
	}
	return extensionTask(task.state, more), nil
}

// cancelExtensionTask answers a modern tasks/cancel: an acknowledgement,
// whatever the task's status; a running task stops and ends cancelled.
func (srv *server) cancelExtensionTask(in *session.Incoming, id string) (any, error) {
	stopped := srv.tasks.update(id, session.TaskCancelled, "cancelled by tasks/cancel", nil, nil)
	srv.log.Info("task cancel received", "task", id, "signal", "tasks/cancel ("+session.ExtensionTasks+")",
		"id", in.ID.String(), "stopped", stopped)
	return map[string]any{}, nil
}

// notInExtension refuses a 2025-11-25 task method in a modern request.
func notInExtension(method string) error {
	return &session.RPCError{Code: session.CodeMethodNotFound,
		Message: method + " is not part of protocol " + session.Era2026Version + " (the tasks extension has tasks/get, tasks/update and tasks/cancel)"}
}

// updateExtensionTask answers tasks/update: the demo's tasks ask nothing,
// so every response is for a key not outstanding, which the extension
// says to ignore; it acknowledges.
func (ts *taskStore) updateExtensionTask(_ context.Context, in *session.Incoming) (any, error) {
	if !modernRequest(in) {
		return nil, &session.RPCError{Code: session.CodeMethodNotFound, Message: "tasks/update is a method of the tasks extension (" + session.Era2026Version + ")"}
	}
	if _, _, err := ts.find(in.Params); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

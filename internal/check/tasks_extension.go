package check

import (
	"context"
	"fmt"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The receiver's rule check 7 grades in 2026-07-28, where tasks are the
// io.modelcontextprotocol/tasks extension: cancelling is cooperative, so
// only the acknowledgement is a MUST; how the task ended is reported.
var ruleTaskAcknowledged = Rule{Must, "On success, the server MUST acknowledge the request with an empty result",
	"tasks extension (" + session.ExtensionTasks + "), Task Cancellation", []string{session.Era2026Version}}

// extensionTasks is check 7 in a modern session: a tools/call the server
// makes a task of (it decides), cancelled with tasks/cancel while it
// runs, must be acknowledged; tasks/get then tells whether the server
// stopped it (cancelled) or let it finish, which the extension allows.
func (r *runner) extensionTasks(ctx context.Context, res *Result, caps mcp.ServerCapabilities) {
	res.Title = "tasks/cancel of a running task is acknowledged (tasks extension), and how the task ended"
	if !caps.TasksExtension() {
		res.Status, res.NotApplicable, res.Reason = Skip, true, "the server declares no tasks (no "+session.ExtensionTasks+" extension in server/discover)"
		return
	}
	tool, args, why := r.extensionTaskTool(ctx)
	if why != "" {
		res.Status, res.Reason = Skip, why
		return
	}
	ev := &res.Evidence
	ev.fact("tool %s, called with %s; the server decides whether it is a task (tasks extension)", tool, args)
	task, skip := r.startExtensionTask(ctx, tool, args, ev)
	if skip != "" {
		res.Status, res.Reason = Skip, skip
		return
	}
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _, _ = mcp.FollowTask(fctx, r.s, task.Ref(), mcp.FollowOptions{}) }()
	ended := func(i session.RequestInfo) bool {
		return i.State.Final() || (i.Task != nil && session.TaskStatusTerminal(i.Task.State.Status))
	}
	if info := waitFor(ctx, task, taskRunFor, ended); ended(info) {
		res.Status, res.Reason = Skip, fmt.Sprintf("the task ended (%s) within %s, before it could be cancelled: give a slower tool with --tool NAME --args JSON",
			info.Task.State.Status, taskRunFor)
		return
	}
	if err := task.Cancel("mcpoke check 7: tasks/cancel on a running task"); err != nil {
		res.Status, res.Reason = Skip, "the task could not be cancelled: "+err.Error()
		return
	}
	info := waitFor(ctx, task, r.opts.CallTimeout, func(i session.RequestInfo) bool { return i.Task.Cancel != nil })
	a := info.Task.Cancel
	res.Status, res.Rule = Pass, ruleTaskAcknowledged
	switch {
	case a == nil || a.Failure != "":
		why := "no answer within " + r.opts.CallTimeout.String()
		if a != nil {
			why = a.Failure
		}
		res.Status = Fail
		ev.fact("tasks/cancel on the running task: %s", why)
		return
	case a.Error != nil:
		res.Status = Fail
		ev.fact("tasks/cancel on the running task was refused: %v", a.Error)
		return
	}
	ev.time("cancelAnsweredAfter", a.At.Sub(info.CancelSentAt))
	ev.fact("tasks/cancel on the running task: acknowledged %s later", human(a.At.Sub(info.CancelSentAt)))
	info = waitFor(ctx, task, r.opts.CallTimeout, func(i session.RequestInfo) bool { return i.State.Final() })
	switch {
	case info.State == session.Cancelled && info.Task.State.Status == session.TaskCancelled:
		ev.fact("tasks/get then said cancelled: the server stopped the task")
	case info.State.Final():
		// "Cancellation is cooperative — the task may still reach a
		// non-cancelled terminal status" (tasks-extension.mdx).
		ev.fact("%s: the extension's cancellation is cooperative (the task may still reach a non-cancelled terminal status), so this is allowed",
			info.Task.Outcome)
	default:
		ev.fact("%s after the acknowledgement, the task is still %s: the extension's cancellation is cooperative, so this is allowed",
			r.opts.CallTimeout, info.Task.State.Status)
	}
}

// extensionTaskTool picks the tool check 7 calls: --tool, else one whose
// taskSupport hints at a task. 2026-07-28 servers need not say which
// (the server decides per call), so without either it is a skip.
func (r *runner) extensionTaskTool(ctx context.Context) (string, []byte, string) {
	if r.opts.Tool != "" {
		args := r.opts.Args
		if args == nil {
			args = []byte(`{}`)
		}
		return r.opts.Tool, args, ""
	}
	tool, args, why := r.taskTool(ctx)
	if why != "" {
		why = "the server declares the " + session.ExtensionTasks + " extension, but no tool says it runs as a task " +
			"(in 2026-07-28 the server decides per call): name one with --tool NAME --args JSON"
	}
	return tool, args, why
}

// startExtensionTask calls tool plainly and returns the task row the
// server made of it; skip says why there is none.
func (r *runner) startExtensionTask(ctx context.Context, tool string, args []byte, ev *Evidence) (session.Request, string) {
	params, err := mcp.CallToolParams(tool, args)
	if err != nil {
		return session.Request{}, err.Error()
	}
	c, err := r.s.Call(ctx, "tools/call", params, session.CallOptions{Timeout: r.opts.CallTimeout})
	if err != nil {
		return session.Request{}, "tools/call: " + err.Error()
	}
	if _, err := c.Wait(ctx); err != nil {
		return session.Request{}, "the tools/call failed: " + err.Error()
	}
	info, _ := r.s.Request(c.Ref()).Info()
	if info.TaskRow().Seq == 0 {
		return session.Request{}, "the server answered tools/call " + tool + " without a task (in the extension the server decides)"
	}
	task := r.s.Request(info.TaskRow())
	t, _ := task.Info()
	ev.fact("the CreateTaskResult (resultType task) named task %s, %s", t.TaskID, t.Task.State.Status)
	return task, ""
}

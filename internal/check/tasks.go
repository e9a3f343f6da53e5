package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The receiver's rules check 7 grades (tasks.mdx, Task Cancellation).
var (
	ruleTaskCancelled = Rule{Must, "Upon receiving a valid cancellation request, receivers … MUST transition the task to cancelled status before sending the response",
		"tasks.mdx, Task Cancellation", []string{"2025-11-25"}}
	ruleTaskStaysCancelled = Rule{Must, "Once a task is cancelled, it MUST remain in cancelled status even if execution continues to completion or fails",
		"tasks.mdx, Task Cancellation", []string{"2025-11-25"}}
	ruleTaskRefuseTerminal = Rule{Must, "Receivers MUST reject cancellation requests for tasks already in a terminal status (completed, failed, or cancelled) with error code -32602 (Invalid params)",
		"tasks.mdx, Task Cancellation", []string{"2025-11-25"}}
)

// taskCheckOpts: how long check 7 lets a task run before it cancels it,
// and how long after the cancel it looks whether the task stayed
// cancelled.
const (
	taskRunFor   = 300 * time.Millisecond
	taskStayedBy = 500 * time.Millisecond
)

// tasks is check 7: a task-augmented tools/call, cancelled with
// tasks/cancel while it runs, must end cancelled (in the answer, and
// after); a second tasks/cancel, for the task now terminal, must be
// refused with -32602.
func (r *runner) tasks(ctx context.Context, res *Result) {
	caps, err := mcp.ParseServerCapabilities(r.conn.Peer().Capabilities)
	switch {
	case r.s.Era2026():
		r.extensionTasks(ctx, res, caps)
		return
	case err != nil || caps.Tasks == nil:
		res.Status, res.NotApplicable, res.Reason = Skip, true, "the server has no tasks (it declares no tasks capability)"
		return
	case !caps.Tasks.ToolsCall:
		res.Status, res.NotApplicable, res.Reason = Skip, true, "the server declares tasks but not task-augmented tools/call (tasks.requests.tools.call)"
		return
	case !caps.Tasks.Cancel:
		res.Status, res.NotApplicable, res.Reason = Skip, true, "the server declares tasks but not tasks/cancel (tasks.cancel)"
		return
	}
	tool, args, why := r.taskTool(ctx)
	if why != "" {
		res.Status, res.Reason = Skip, why
		return
	}
	ev := &res.Evidence
	ev.fact("tool %s, called as a task with %s", tool, args)
	task, skip := r.startTask(ctx, tool, args, ev)
	if skip != "" {
		res.Status, res.Reason = Skip, skip
		return
	}
	res.Status = Pass
	fail := func(rule Rule, format string, a ...any) {
		res.Status, res.Rule = Fail, rule
		ev.fact(format, a...)
	}
	ran := r.cancelRunningTask(ctx, task, ev, fail, res)
	if res.Status == Fail || res.Status == Skip {
		// A skip left the task running: cancelling it is no test of
		// refusing a finished one, and a server right to accept it
		// would fail.
		return
	}
	info, _ := task.Info()
	r.cancelFinishedTask(ctx, info.TaskID, ev, fail)
	if !ran && res.Status == Pass {
		// A pass rests on what ran: the finished task's refusal only.
		res.Rule = ruleTaskRefuseTerminal
	}
}

// taskTool picks the tool check 7 runs as a task: --tool when it may be
// one, else the first that requires a task, else one that may be one.
func (r *runner) taskTool(ctx context.Context) (string, []byte, string) {
	list, err := mcp.ListTools(ctx, r.s, mcp.ListOptions{})
	if err != nil {
		return "", nil, "tools/list failed: " + err.Error()
	}
	ok := func(t mcp.Tool) bool { return t.TaskSupport() != mcp.TaskForbidden }
	var t *mcp.Tool
	if r.opts.Tool != "" {
		if i := slices.IndexFunc(list.Tools, func(t mcp.Tool) bool { return t.Name == r.opts.Tool }); i >= 0 && ok(list.Tools[i]) {
			t = &list.Tools[i]
		}
	}
	for _, want := range []string{mcp.TaskRequired, mcp.TaskOptional} {
		for i := range list.Tools {
			if t == nil && list.Tools[i].TaskSupport() == want {
				t = &list.Tools[i]
			}
		}
	}
	if t == nil {
		return "", nil, "the server declares task-augmented tools/call, but none of its tools runs as a task (execution.taskSupport)"
	}
	args := buildArgs(*t, false)
	if r.opts.Tool == t.Name && r.opts.Args != nil {
		args = r.opts.Args
	}
	return t.Name, args, ""
}

// startTask calls tool as a task and returns its task row; skip says why
// there is none.
func (r *runner) startTask(ctx context.Context, tool string, args []byte, ev *Evidence) (session.Request, string) {
	params, err := mcp.CallToolParams(tool, args)
	if err == nil {
		params, err = mcp.AsTaskParams(params, 0)
	}
	if err != nil {
		return session.Request{}, err.Error()
	}
	c, err := r.s.Call(ctx, "tools/call", params, session.CallOptions{Timeout: r.opts.CallTimeout})
	if err != nil {
		return session.Request{}, "tools/call: " + err.Error()
	}
	if _, err := c.Wait(ctx); err != nil {
		return session.Request{}, "the task-augmented tools/call failed: " + err.Error()
	}
	info, _ := r.s.Request(c.Ref()).Info()
	if info.TaskRow().Seq == 0 {
		return session.Request{}, "the server answered the task-augmented tools/call without a task"
	}
	task := r.s.Request(info.TaskRow())
	t, _ := task.Info()
	ev.fact("the CreateTaskResult named task %s, %s", t.TaskID, t.Task.State.Status)
	return task, ""
}

// cancelRunningTask lets the task run a moment, cancels it with
// tasks/cancel (the session sends it, as for any task) and grades the
// answer, then whether the task stayed cancelled. It reports false when
// the task ended before the cancel reached it: nothing was tested, which
// is no warning (the server broke nothing), and says so.
func (r *runner) cancelRunningTask(ctx context.Context, task session.Request, ev *Evidence,
	fail func(Rule, string, ...any), res *Result) (ran bool) {
	ended := func(i session.RequestInfo) bool {
		return i.State.Final() || (i.Task != nil && session.TaskStatusTerminal(i.Task.State.Status))
	}
	waitFor(ctx, task, taskRunFor, ended)
	if info, _ := task.Info(); ended(info) {
		ev.fact("not tested: the task ended (%s) within %s, before it could be cancelled: give a slower tool with --tool NAME --args JSON",
			info.Task.State.Status, taskRunFor)
		return false
	}
	if err := task.Cancel("mcpoke check 7: tasks/cancel on a running task"); err != nil {
		res.Status, res.Reason = Skip, "the task could not be cancelled: "+err.Error()
		return
	}
	info := waitFor(ctx, task, r.opts.CallTimeout, func(i session.RequestInfo) bool { return i.Task.Cancel != nil })
	a := info.Task.Cancel
	switch {
	case a == nil || a.Failure != "":
		why := "no answer within " + r.opts.CallTimeout.String()
		if a != nil {
			why = a.Failure
		}
		fail(ruleTaskCancelled, "tasks/cancel on the running task: %s", why)
		return
	case a.Refused():
		st := r.taskStatus(ctx, info.TaskID)
		if st == session.TaskCompleted || st == session.TaskFailed {
			ev.fact("not tested: tasks/cancel was refused (%v), and the task is %s: it ended before the cancel arrived; give a slower tool", a.Error, st)
			return false
		}
		fail(ruleTaskCancelled, "tasks/cancel on a running task (status %s) was refused: %v", st, a.Error)
		return
	case a.Error != nil:
		fail(ruleTaskCancelled, "tasks/cancel on a running task failed: %v", a.Error)
		return
	case a.Status != session.TaskCancelled:
		fail(ruleTaskCancelled, "tasks/cancel was answered with status %q: the task must be cancelled before the answer", a.Status)
		return
	}
	ev.time("cancelAnsweredAfter", a.At.Sub(info.CancelSentAt))
	ev.fact("tasks/cancel on the running task: answered %s later, status cancelled", human(a.At.Sub(info.CancelSentAt)))
	select {
	case <-time.After(taskStayedBy):
	case <-ctx.Done():
		return true
	}
	if st := r.taskStatus(ctx, info.TaskID); st != session.TaskCancelled {
		fail(ruleTaskStaysCancelled, "%s after the cancel, tasks/get says the task is %q, not cancelled", taskStayedBy, st)
		return true
	}
	ev.fact("%s later, tasks/get still says cancelled", taskStayedBy)
	return true
}

// cancelFinishedTask sends tasks/cancel again, for the task now
// terminal (cancelled, or ended before the first cancel): the server must
// refuse it with -32602.
func (r *runner) cancelFinishedTask(ctx context.Context, id string, ev *Evidence, fail func(Rule, string, ...any)) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.CallTimeout)
	defer cancel()
	res, err := r.s.Do(ctx, "tasks/cancel", map[string]string{"taskId": id}, session.CallOptions{NoProgressToken: true})
	var rpcErr *session.RPCError
	switch {
	case err == nil:
		fail(ruleTaskRefuseTerminal, "tasks/cancel for the finished task was accepted: %s", clipBytes(res, 200))
	case !errors.As(err, &rpcErr):
		fail(ruleTaskRefuseTerminal, "tasks/cancel for the finished task got no answer: %v", err)
	case rpcErr.Code != session.CodeInvalidParams:
		fail(ruleTaskRefuseTerminal, "tasks/cancel for the finished task was refused with %d, not -32602: %s", rpcErr.Code, rpcErr.Message)
	default:
		ev.fact("tasks/cancel for the finished task: refused with -32602 (%s)", rpcErr.Message)
	}
}

// taskStatus asks the server for a task's status with a plain tasks/get;
// the status, or why there is none.
func (r *runner) taskStatus(ctx context.Context, id string) string {
	ctx, cancel := context.WithTimeout(ctx, r.opts.CallTimeout)
	defer cancel()
	res, err := r.s.Do(ctx, "tasks/get", map[string]string{"taskId": id}, session.CallOptions{NoProgressToken: true})
	if err != nil {
		return fmt.Sprintf("unknown (tasks/get: %v)", err)
	}
	st, err := session.ParseTaskState(res)
	if err != nil {
		return fmt.Sprintf("unknown (tasks/get: %v)", err)
	}
	return st.Status
}

// waitFor watches the request until cond holds, d passes or ctx ends,
// and returns its last snapshot.
func waitFor(ctx context.Context, h session.Request, d time.Duration, cond func(session.RequestInfo) bool) session.RequestInfo {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		info, changed, ok := h.Watch()
		if !ok || cond(info) || info.State.Final() {
			return info
		}
		select {
		case <-changed:
		case <-deadline.C:
			return info
		case <-ctx.Done():
			return info
		}
	}
}

func clipBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

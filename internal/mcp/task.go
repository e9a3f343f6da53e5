package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// Task support a tool declares in execution.taskSupport (2025-11-25).
const (
	TaskForbidden = "forbidden"
	TaskOptional  = "optional"
	TaskRequired  = "required"
)

// TaskSupport is the tool's execution.taskSupport, "forbidden" when it
// gives none.
func (t Tool) TaskSupport() string {
	switch t.Execution.TaskSupport {
	case TaskOptional, TaskRequired:
		return t.Execution.TaskSupport
	}
	return TaskForbidden
}

// ErrTaskNotAllowed means the user asked to run a tool as a task that the
// server or the tool says may not be one. A *TaskError says why.
var ErrTaskNotAllowed = errors.New("the tool cannot be called as a task")

// TaskError is the refusal to call a tool as a task.
type TaskError struct {
	Tool string
	// Why says which rule forbids it.
	Why string
}

// Error implements error. It names no flag: the CLI says how to send it
// anyway.
func (e *TaskError) Error() string {
	return fmt.Sprintf("%s cannot be called as a task: %s", e.Tool, e.Why)
}

// Is makes errors.Is(err, ErrTaskNotAllowed) true.
func (e *TaskError) Is(target error) bool { return target == ErrTaskNotAllowed }

// TaskChoice is how a tool may be called, by the rules of MCP 2025-11-25
// tasks: whether it goes as a task, and whether the user may choose.
type TaskChoice struct {
	// AsTask: the call goes as a task unless the user chooses otherwise.
	AsTask bool
	// Choosable: the user may choose (taskSupport "optional" on a server
	// with task-augmented tools/call).
	Choosable bool
	// Note says in words why, for a detail pane or a warning: "" when
	// there is nothing to say.
	Note string
}

// TaskChoiceFor applies the tool-level negotiation of tasks.mdx: a server
// without tasks.requests.tools.call gets no task, whatever the tool says
// (MUST NOT); "required" is called as a task (MUST), "optional" as the
// user chooses (plain by default), anything else never.
func TaskChoiceFor(t Tool, caps ServerCapabilities) TaskChoice {
	support := t.TaskSupport()
	if caps.TasksExtension() && caps.Tasks == nil && support != TaskForbidden {
		return TaskChoice{Note: "the server may answer with a task (tasks extension): it decides, " +
			"and mcpoke follows it (tasks/get; c cancels it with tasks/cancel)"}
	}
	if caps.Tasks == nil || !caps.Tasks.ToolsCall {
		if support == TaskRequired {
			return TaskChoice{Note: "the tool requires a task, but the server did not declare tasks.requests.tools.call, " +
				"so it is called plainly (the spec forbids a task then); expect the server to refuse it"}
		}
		return TaskChoice{}
	}
	switch support {
	case TaskRequired:
		return TaskChoice{AsTask: true, Note: "the tool requires a task: it is called as one"}
	case TaskOptional:
		return TaskChoice{Choosable: true}
	}
	return TaskChoice{}
}

// DecideTask says whether a call of t goes as a task: as the rules say,
// or as the user asked (asked: true for a task, false for plain, nil for
// no preference). A choice the rules forbid is a *TaskError unless force.
func DecideTask(t Tool, caps ServerCapabilities, asked *bool, force bool) (bool, error) {
	c := TaskChoiceFor(t, caps)
	if asked == nil || *asked == c.AsTask || c.Choosable || force {
		if asked != nil && (c.Choosable || force) {
			return *asked, nil
		}
		return c.AsTask, nil
	}
	why := "its taskSupport is " + t.TaskSupport()
	switch {
	case caps.TasksExtension() && caps.Tasks == nil:
		why = "in protocol " + session.Era2026Version + " the server decides whether a call becomes a task (the tasks extension), not the client"
	case !*asked:
		why = "it requires a task (taskSupport required)"
	case caps.Tasks == nil || !caps.Tasks.ToolsCall:
		why = "the server did not declare tasks.requests.tools.call"
	}
	return false, &TaskError{Tool: t.Name, Why: why}
}

// AsTaskParams adds the task member to tools/call params (made by
// CallToolParams), keeping the order of the others: the request asks the
// server to run it as a task. ttlMs is the lifetime asked for, in
// milliseconds; 0 leaves it to the server.
func AsTaskParams(params json.RawMessage, ttlMs int64) (json.RawMessage, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil || p == nil {
		return nil, fmt.Errorf("tools/call params must be an object: %s", clip(string(params), 80))
	}
	if _, ok := p["task"]; ok {
		return params, nil
	}
	task := `{}`
	if ttlMs > 0 {
		task = fmt.Sprintf(`{"ttl":%d}`, ttlMs)
	}
	body := bytes.TrimSpace(params)
	body = bytes.TrimSpace(body[:len(body)-1]) // without its closing brace
	out := append([]byte(nil), body...)
	if len(p) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"task":`...)
	out = append(out, task...)
	return append(out, '}'), nil
}

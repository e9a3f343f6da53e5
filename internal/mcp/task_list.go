package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// TaskList is what ListTasks read.
type TaskList struct {
	Tasks []session.TaskState
	// Raw holds each task as the server sent it, in the order of Tasks.
	Raw []json.RawMessage
	// Pages is how many pages were read.
	Pages int
	// Incomplete is set when paging stopped before the last page (see
	// ToolList.Incomplete).
	Incomplete error
	// Malformed says, for each entry that is not a Task object, what is
	// wrong with it: one bad entry does not hide the others.
	Malformed []string
}

// ErrNoTaskList means the session speaks 2026-07-28, whose tasks extension
// has no tasks/list.
var ErrNoTaskList = errors.New("protocol " + session.Era2026Version + " has no tasks/list: tasks are the " + session.ExtensionTasks +
	" extension, which removed it (a server cannot leak one client's tasks to another); a task is followed by its id, " +
	"and the TUI's task filter shows this session's; protocol 2025-11-25 lists a server's tasks")

// TaskListAllowed says why tasks/list is not sent in s, or nil.
func TaskListAllowed(s *session.Session) error {
	if s.Era2026() {
		return ErrNoTaskList
	}
	return nil
}

// ListTasks sends tasks/list, following nextCursor to the last page. A
// server that did not declare tasks.list is sent nothing unless
// opts.Force: the error is then a *CapabilityError. A task that is not a
// Task object is left out and described in Malformed.
func ListTasks(ctx context.Context, s *session.Session, opts ListOptions) (TaskList, error) {
	var list TaskList
	if err := TaskListAllowed(s); err != nil {
		return list, err
	}
	err := listPages(ctx, s, "tasks/list", opts, &list.Pages, func(page json.RawMessage, keep *listBudget) (string, error) {
		var p struct {
			Tasks      []json.RawMessage `json:"tasks"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(page, &p); err != nil {
			return "", fmt.Errorf("malformed result: %w", err)
		}
		for _, raw := range p.Tasks {
			if !keep.take(raw) {
				break
			}
			t, err := session.ParseTaskState(raw)
			if err != nil {
				list.Malformed = append(list.Malformed, fmt.Sprintf("%v: %s", err, clip(string(raw), 80)))
				continue
			}
			list.Tasks = append(list.Tasks, t)
			list.Raw = append(list.Raw, raw)
		}
		return p.NextCursor, nil
	})
	var stopped *pagingStopped
	if errors.As(err, &stopped) {
		list.Incomplete = stopped.err
		return list, nil
	}
	return list, err
}

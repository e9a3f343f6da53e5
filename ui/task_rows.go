package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// A task (MCP 2025-11-25) is a row of its own: the tools/call that created
// it completed with its CreateTaskResult, and the task row lives on with
// the server's status until it ends. The session applies every status
// and the rules of its cancellation (tasks/cancel); the UI shows them and
// runs mcp.FollowTask for each task, which polls it and fetches its
// result. Its polls (tasks/get) get no rows: the task row counts them,
// and the wire log has them.

// taskFollowedMsg: mcp.FollowTask returned for the task row seq.
type taskFollowedMsg struct {
	forGen
	seq uint64
	err error
}

// followTaskCmd drives a task row until it ends: polls at the server's
// interval, tasks/result when it needs input or ended; for a task of the
// 2026-07-28 extension, tasks/update with the answers of cs's questions.
func followTaskCmd(gen int, s *session.Session, ref session.Ref, cs *mcp.ClientSide) tea.Cmd {
	return func() tea.Msg {
		_, err := mcp.FollowTask(context.Background(), s, ref, mcp.FollowOptions{Side: cs})
		return taskFollowedMsg{forGen: forGen{gen}, seq: ref.Seq, err: err}
	}
}

// taskStateWord is what the state column says for a task row still
// running: the server's status while pending; that the cancel was
// refused while it waits for the task's end.
func taskStateWord(r *rows.Row) (string, bool) {
	switch {
	case !r.IsTask():
		return "", false
	case r.State == session.Pending && r.TaskStatus() != "":
		return strings.ReplaceAll(termtext.Line(r.TaskStatus()), "_", " "), true
	case r.State == session.Cancelling && r.CancelRefused():
		return "cancel refused", true
	case r.State == session.Cancelling && r.TaskOrNone().Cancel != nil && r.TaskOrNone().Cancel.Acknowledged:
		return "cancel acked", true
	}
	return "", false
}

// taskNote is the row's note on its task: the task's status message, or,
// for the call that created one, which row it is.
func (t *requestTable) taskNote(r *rows.Row) string {
	switch {
	case r.IsTask() && r.TaskOrNone().Outcome != "" && r.TaskOrNone().State != nil && r.TaskOrNone().Cancel != nil && r.TaskOrNone().Cancel.Acknowledged:
		// The detail has the whole sentence; the row its gist. A refused
		// or unanswered cancel says so in the detail, not here.
		if session.TaskStatusTerminal(r.TaskOrNone().State.Status) {
			return "cancel acknowledged; task ended " + termtext.Line(r.TaskOrNone().State.Status)
		}
		return "cancel acknowledged; task still " + strings.ReplaceAll(termtext.Line(r.TaskOrNone().State.Status), "_", " ")
	case r.IsTask() && r.TaskOrNone().State != nil && r.TaskOrNone().State.StatusMessage != "" && !r.State.Final():
		return termtext.Quote(r.TaskOrNone().State.StatusMessage)
	case r.TaskOrNone().Created != 0:
		if task := t.store.Get(r.TaskOrNone().Created); task != nil {
			return "→ task " + termtext.Line(shortTaskID(task.TaskOrNone().ID))
		}
	case !r.IsTask() && r.TaskOrNone().Parent.Seq != 0:
		if task := t.store.Get(r.TaskOrNone().Parent.Seq); task != nil && task.IsTask() {
			return "for task " + termtext.Line(shortTaskID(task.TaskOrNone().ID))
		}
	}
	return ""
}

// shortTaskID shortens the long random ids servers use.
func shortTaskID(id string) string {
	if len(id) > 12 {
		return id[:8] + "…"
	}
	return id
}

// taskLines are the task section of a task row's detail: the task, its
// statuses with their times (late ones after the cancel), and what came
// of tasks/cancel.
func (d *detail) taskLines() []string {
	st := d.c.Styles
	r := d.row
	head := st.Key.Render("task") + " " + termtext.Line(r.TaskOrNone().ID)
	if t := r.TaskOrNone().State; t != nil {
		head += " · " + termtext.Line(t.Status)
		var facts []string
		if p := t.PollEvery(); p > 0 {
			facts = append(facts, "poll every "+formatDuration(p))
		}
		if t.TTL != nil {
			facts = append(facts, "ttl "+formatDuration(msDuration(*t.TTL)))
		} else {
			facts = append(facts, "ttl unlimited")
		}
		if r.TaskOrNone().Polls > 0 {
			facts = append(facts, "polled "+english.Plural(r.TaskOrNone().Polls, "time"))
		}
		head += st.Muted.Render(" · " + strings.Join(facts, " · "))
	}
	out := []string{head}
	if r.TaskOrNone().Parent.Seq != 0 {
		out = append(out, st.Muted.Render("created by the CreateTaskResult of request "+termtext.Line(r.TaskOrNone().Parent.ID.String())))
	}
	for _, u := range r.TaskOrNone().Updates {
		line := "  " + st.Muted.Render(fmt.Sprintf("%-7s", d.rel(u.At))) + " " + termtext.Line(u.Status)
		if u.StatusMessage != "" {
			line += " " + termtext.Quote(u.StatusMessage)
		}
		line += st.Muted.Render(" (" + u.Via.String() + ")")
		if u.Late {
			line += " " + st.BadgeWarn.Render("late +"+formatDuration(u.AfterCancel)+" after the cancel")
		}
		out = append(out, line)
	}
	if a := r.TaskOrNone().Cancel; a != nil {
		out = append(out, taskCancelLine(st, d.rel(a.At), a))
	}
	if r.TaskOrNone().Outcome != "" {
		out = append(out, st.Key.Render("outcome")+" "+termtext.Line(r.TaskOrNone().Outcome))
	}
	return out
}

// taskCancelLine says what came of tasks/cancel.
func taskCancelLine(st *styles, at string, a *session.TaskCancelAnswer) string {
	label := st.Key.Render("tasks/cancel") + " "
	switch {
	case a.Refused():
		return label + st.BadgeWarn.Render("refused "+at+": "+termtext.Line(a.Error.Message)) +
			st.Muted.Render(fmt.Sprintf(" (%d): the task had already ended", a.Error.Code))
	case a.Error != nil:
		return label + st.StatusErr.Render(fmt.Sprintf("failed %s: %s (%d)", at, termtext.Line(a.Error.Message), a.Error.Code))
	case a.Failure != "":
		return label + st.StatusErr.Render("no answer: "+termtext.Line(a.Failure))
	case a.Acknowledged:
		return label + st.Muted.Render("acknowledged "+at+": cancelling a task is cooperative; tasks/get tells how it ends")
	}
	return label + st.Muted.Render("answered "+at+": the task is "+termtext.Line(a.Status))
}

// msDuration is a JSON number of milliseconds as a Duration.
func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// lateStatusBadge is the badge of a task's statuses after its cancel: a
// warning when one says the task is anything but cancelled.
func lateStatusBadge(r *rows.Row) (badge, bool) {
	if r.LateOrNone().Statuses == 0 {
		return badge{}, false
	}
	n := " ×" + strconv.Itoa(r.LateOrNone().Statuses)
	return badge{text: "status after cancel" + n, short: []string{"late status" + n, "late st" + n}, warn: r.LateOrNone().OddStatuses > 0}, true
}

// taskChoice is how the tool may be called by the rules of tasks, for
// this server.
func (m *Model) taskChoice(t mcp.Tool) mcp.TaskChoice {
	caps, err := mcp.ParseServerCapabilities(m.header.peer.Capabilities)
	if err != nil {
		return mcp.TaskChoice{}
	}
	return mcp.TaskChoiceFor(t, caps)
}

// SetTaskChoice says how the open tool may be called; it starts as the
// rules say (a task when required).
func (e *argEditor) SetTaskChoice(c mcp.TaskChoice) {
	e.taskChoice, e.asTask, e.taskNote = c, c.AsTask, ""
}

// toggleTask flips "as a task" where the tool lets the user choose, and
// says why not elsewhere.
func (e *argEditor) toggleTask() {
	k := e.c.Keys.Editor.AsTask.Help().Key
	switch {
	case e.taskChoice.Choosable:
		e.asTask = !e.asTask
		e.taskNote = ""
	case e.asTask:
		e.taskNote = k + ": this tool requires a task; it cannot be called plainly"
	default:
		e.taskNote = k + ": this tool cannot be called as a task (taskSupport " + e.tool.TaskSupport() +
			", or the server has no task-augmented tools/call)"
	}
}

// taskLine says how the call goes, when tasks are in play.
func (e *argEditor) taskLine() string {
	k := e.c.Keys.Editor.AsTask.Help().Key
	switch {
	case e.taskNote != "":
		return e.taskNote
	case e.taskChoice.Choosable && e.asTask:
		return "runs as a task (tasks/get, tasks/result; c cancels it with tasks/cancel); " + k + " calls it plainly"
	case e.taskChoice.Choosable:
		return "may run as a task: " + k + " calls it as one"
	case e.asTask:
		return "runs as a task: the tool requires one (c cancels it with tasks/cancel)"
	}
	return termtext.Line(e.taskChoice.Note)
}

// toggleTasks shows only the task rows, or every row again: the tasks
// mcpoke created, each with its whole life. A filter of the table rather
// than tasks/list: the table has every task of this session with its
// statuses, cancel and late traffic, and c works on its rows; the
// server's list would show only what it still keeps, with none of that
// (mcpoke tasks sends tasks/list).
func (m *Model) toggleTasks() {
	m.table.SetTasksOnly(!m.table.TasksOnly())
	m.setFocus(focusRequests)
	if m.table.TasksOnly() {
		m.setStatus("tasks only: "+english.Plural(len(m.table.rows()), "task")+"; "+
			m.c.Keys.Global.Tasks.Help().Key+" shows every request again", false)
		return
	}
	m.setStatus("every request", false)
}

// callToolAs sends tools/call, as a task when asTask.
func (m *Model) callToolAs(name string, args []byte, asTask bool) tea.Cmd {
	if !asTask {
		return m.callTool(name, args)
	}
	if m.conn == nil {
		return nil
	}
	params, err := mcp.CallToolParams(name, args)
	if err == nil {
		params, err = mcp.AsTaskParams(params, 0)
	}
	if err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	m.calledTool = true
	m.setStatus("calling "+termtext.Line(name)+" as a task…", false)
	return callCmd(m.gen, m.conn.Session, "tools/call", params, m.bounds(), "tools/call "+termtext.Line(name)+" as a task")
}

// taskFollowed reports a task that mcpoke could not follow to its end.
func (m *Model) taskFollowed(msg taskFollowedMsg) {
	if msg.err == nil {
		return
	}
	label := "task"
	if r := m.store.Get(msg.seq); r != nil {
		label = r.Label()
	}
	m.setStatus(termtext.Line(label)+": could not follow the task: "+msg.err.Error(), true)
}

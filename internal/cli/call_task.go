package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// reportTask is the task a call created, in `call --json`: its id and
// last state as the server gave it, every status with its time (ms since
// the call was sent; late ones after the cancel), and the cancel with its
// answer.
type reportTask struct {
	ID             string             `json:"id"`
	Status         string             `json:"status"`
	StatusMessage  string             `json:"statusMessage,omitempty"`
	CreatedAt      string             `json:"createdAt,omitempty"`
	TTLMs          *float64           `json:"ttlMs"`
	PollIntervalMs *float64           `json:"pollIntervalMs"`
	Polls          int                `json:"polls"`
	Statuses       []reportTaskStatus `json:"statuses"`
	StatusCount    int                `json:"statusCount"`
	Cancel         *reportTaskCancel  `json:"cancel"`
	// Inputs are the questions of an extension task (2026-07-28): its
	// inputRequests, asked and answered with tasks/update.
	Inputs []reportTaskInput `json:"inputs,omitempty"`
}

// reportTaskInput is one inputRequest of a task and how it was answered.
type reportTaskInput struct {
	Key     string  `json:"key"`
	Method  string  `json:"method"`
	AtMs    float64 `json:"atMs"`
	Answer  string  `json:"answer"`
	Refused string  `json:"refused,omitempty"`
}

// taskInputs are the questions asked for task row ref, times from start.
func (l *askLog) taskInputs(ref session.Ref, start time.Time) []reportTaskInput {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []reportTaskInput
	for _, a := range l.asked {
		if a.Q.Ref.Seq == ref.Seq && a.Q.InputKey != "" {
			out = append(out, reportTaskInput{Key: a.Q.InputKey, Method: a.Q.Method, AtMs: ms(a.At.Sub(start)), Answer: a.Answer, Refused: a.Refused})
		}
	}
	return out
}

type reportTaskStatus struct {
	Status        string  `json:"status"`
	StatusMessage string  `json:"statusMessage,omitempty"`
	Via           string  `json:"via"`
	AtMs          float64 `json:"atMs"`
	Late          bool    `json:"late"`
	AfterCancelMs float64 `json:"afterCancelMs,omitempty"`
}

// reportTaskCancel is tasks/cancel and what came of it: the task's status
// in the answer, the server's refusal (-32602 when the task had already
// ended), or why no answer came.
type reportTaskCancel struct {
	Reason     string       `json:"reason"`
	SentAtMs   float64      `json:"sentAtMs"`
	AnsweredMs *float64     `json:"answeredAtMs,omitempty"`
	Status     string       `json:"status,omitempty"`
	Refused    bool         `json:"refused"`
	Error      *reportError `json:"error,omitempty"`
	Failure    string       `json:"failure,omitempty"`
	// Acknowledged: the tasks extension's empty answer (2026-07-28), and
	// Outcome how the task really ended, cancelling being cooperative.
	Acknowledged bool   `json:"acknowledged,omitempty"`
	Outcome      string `json:"outcome,omitempty"`
}

// taskReportOf reads a task row (Task is set) for the report; times
// count from start, when the call was sent.
func taskReportOf(t session.RequestInfo, start time.Time) *reportTask {
	at := func(x time.Time) float64 { return ms(x.Sub(start)) }
	r := &reportTask{ID: t.TaskID, Polls: t.Task.Polls, StatusCount: t.Task.UpdateCount, Statuses: []reportTaskStatus{}}
	st := t.Task.State
	r.Status, r.StatusMessage, r.CreatedAt = st.Status, st.StatusMessage, st.CreatedAt
	r.TTLMs, r.PollIntervalMs = st.TTL, st.PollInterval
	for _, u := range t.Task.Updates {
		s := reportTaskStatus{Status: u.Status, StatusMessage: u.StatusMessage, Via: u.Via.String(), AtMs: at(u.At), Late: u.Late}
		if u.Late {
			s.AfterCancelMs = ms(u.AfterCancel)
		}
		r.Statuses = append(r.Statuses, s)
	}
	if !t.CancelAt.IsZero() && !t.CancelSentAt.IsZero() {
		c := &reportTaskCancel{Reason: t.CancelReason, SentAtMs: at(t.CancelSentAt)}
		if a := t.Task.Cancel; a != nil {
			answered := at(a.At)
			c.AnsweredMs, c.Status, c.Refused, c.Failure = &answered, a.Status, a.Refused(), a.Failure
			c.Acknowledged, c.Outcome = a.Acknowledged, t.Task.Outcome
			if a.Error != nil {
				code := a.Error.Code
				c.Error = &reportError{Code: &code, Message: a.Error.Message, Data: a.Error.Data}
			}
		}
		r.Cancel = c
	}
	return r
}

// decideCallTask says whether the call goes as a task: as the tool and
// the server say, or as --task asks where that is allowed. --unlisted
// knows no tool: only --task says.
func decideCallTask(srv *connect.Conn, tool *mcp.Tool, asked bool, force bool) (bool, error) {
	if tool == nil {
		return asked, nil
	}
	caps, err := mcp.ParseServerCapabilities(srv.Peer().Capabilities)
	if err != nil && !force {
		return false, usageError("%v", err)
	}
	var want *bool
	if asked {
		want = &asked
	}
	asTask, err := mcp.DecideTask(*tool, caps, want, force)
	if errors.Is(err, mcp.ErrTaskNotAllowed) {
		return false, usageError("%v; --force sends it as one anyway", err)
	}
	return asTask, err
}

// followCallTask follows the task the call created until it ends; it
// returns the task row's final snapshot, or false when the call created
// none. Interrupted (ctx ended), it cancels the task with tasks/cancel, as
// an interrupted plain call is cancelled, and waits for the end of that.
func followCallTask(ctx context.Context, s *session.Session, call session.Ref, side *mcp.ClientSide) (session.RequestInfo, bool) {
	info, _ := s.Request(call).Info()
	if info.TaskRow().Seq == 0 {
		return session.RequestInfo{}, false
	}
	task, err := mcp.FollowTask(ctx, s, info.TaskRow(), mcp.FollowOptions{Side: side})
	if err != nil && ctx.Err() != nil {
		_ = s.Request(info.TaskRow()).Cancel(fmt.Sprintf("cancelled by mcpoke: %v", context.Cause(ctx)))
		wait, stop := context.WithTimeout(context.Background(), signalGrace/2)
		defer stop()
		task, _ = s.Request(info.TaskRow()).Wait(wait)
	}
	return task, true
}

// maxTaskStatusesShown bounds the statuses the text report lists; --json
// has them all.
const maxTaskStatusesShown = 20

// printTask writes the task lines of the text report: the task, then each
// status with its time and the message that brought it.
func printTask(line func(label, format string, a ...any), t *reportTask) {
	head := termtext.Line(t.ID) + " · " + termtext.Line(t.Status)
	if t.StatusMessage != "" {
		head += ": " + termtext.Line(t.StatusMessage)
	}
	var more []string
	if t.Polls > 0 {
		more = append(more, "polled "+english.Plural(t.Polls, "time"))
	}
	if t.PollIntervalMs != nil {
		more = append(more, "poll interval "+human(*t.PollIntervalMs))
	}
	if t.TTLMs != nil {
		more = append(more, "ttl "+time.Duration(*t.TTLMs*float64(time.Millisecond)).String())
	}
	if len(more) > 0 {
		head += " (" + strings.Join(more, ", ") + ")"
	}
	line("task", "%s", head)
	for i, in := range t.Inputs {
		label := ""
		if i == 0 {
			label = "input"
		}
		text := fmt.Sprintf("%9s  %s %s: %s, sent with tasks/update", human(in.AtMs), termtext.Line(in.Method), termtext.Line(in.Key), termtext.Line(in.Answer))
		if in.Refused != "" {
			text = fmt.Sprintf("%9s  %s %s: not answered: %s", human(in.AtMs), termtext.Line(in.Method), termtext.Line(in.Key), termtext.Line(in.Refused))
		}
		line(label, "%s", text)
	}
	label := "statuses"
	for i, s := range t.Statuses {
		if i == maxTaskStatusesShown {
			line(label, "… %d more (--json lists them all)", len(t.Statuses)-i)
			break
		}
		text := fmt.Sprintf("%9s  %s", human(s.AtMs), termtext.Line(s.Status))
		if s.StatusMessage != "" {
			text += " " + termtext.Quote(s.StatusMessage)
		}
		text += " (" + s.Via
		if s.Late {
			text += ", late: " + human(s.AfterCancelMs) + " after the cancel"
		}
		line(label, "%s)", text)
		label = ""
	}
}

// taskCancelText says what came of tasks/cancel, for the text report.
func taskCancelText(c *reportTaskCancel) string {
	switch {
	case c.AnsweredMs == nil:
		return "not answered yet"
	case c.Refused:
		return fmt.Sprintf("refused at %s: %s (code %d): the task had already ended", human(*c.AnsweredMs),
			termtext.Line(c.Error.Message), *c.Error.Code)
	case c.Error != nil:
		return fmt.Sprintf("failed at %s: %s (code %d)", human(*c.AnsweredMs), termtext.Line(c.Error.Message), *c.Error.Code)
	case c.Failure != "":
		return "no answer: " + termtext.Line(c.Failure)
	case c.Acknowledged && c.Outcome != "":
		return fmt.Sprintf("acknowledged at %s; %s", human(*c.AnsweredMs), termtext.Line(strings.TrimPrefix(c.Outcome, "cancel acknowledged; ")))
	case c.Acknowledged:
		return fmt.Sprintf("acknowledged at %s (cancelling a task is cooperative)", human(*c.AnsweredMs))
	}
	return fmt.Sprintf("answered at %s: the task is %s", human(*c.AnsweredMs), termtext.Line(c.Status))
}

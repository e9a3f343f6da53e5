package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// Bounds on the server's requests a report lists.
const (
	maxAskedKept   = 1000
	askedShownText = 8
)

// reportAsked is one request the server sent mcpoke during the call, and
// what became of it. Times are ms since the call was sent.
type reportAsked struct {
	ID     session.ID `json:"id"`
	Method string     `json:"method"`
	AtMs   float64    `json:"atMs"`
	// State is the request's final state here: completed (answered),
	// failed (answered with an error) or cancelled (by the server).
	State string `json:"state"`
	// Answer says how the flags answered a question (--sample, --elicit).
	Answer string `json:"answer,omitempty"`
	// CancelReason is the server's, when it cancelled the request.
	CancelReason string `json:"cancelReason,omitempty"`
	// Error is why mcpoke answered with an error (a schema over the
	// bounds, say), when it did.
	Error string `json:"error,omitempty"`
	// Withheld: an answer was ready but not sent, the server having
	// cancelled first. NotSent says why an answer given after the
	// server's cancel was refused.
	Withheld bool   `json:"withheld,omitempty"`
	NotSent  string `json:"notSent,omitempty"`
	// Task is the task mcpoke ran for a task-augmented request.
	Task *reportHostedTask `json:"task,omitempty"`

	seq uint64
	at  time.Time
	end time.Time
}

// reportHostedTask is a task mcpoke hosted for the server: its id and the
// statuses it went through.
type reportHostedTask struct {
	ID       string   `json:"id"`
	Statuses []string `json:"statuses"`
}

// serverRequests collects the server's requests from the session's
// events. Guarded by recorder.mu.
type serverRequests struct {
	list  []*reportAsked
	count int
	bySeq map[uint64]*reportAsked
}

// apply keeps what e says about a request of the server's.
func (s *serverRequests) apply(e session.Event) {
	if s.bySeq == nil {
		s.bySeq = map[uint64]*reportAsked{}
	}
	switch e := e.(type) {
	case session.RequestStarted:
		if !e.Info.Incoming {
			return
		}
		s.count++
		if len(s.list) < maxAskedKept {
			a := &reportAsked{ID: e.Info.ID, Method: e.Info.Method, State: e.Info.State.String(), seq: e.Info.Seq, at: e.Info.Started}
			s.list = append(s.list, a)
			s.bySeq[a.seq] = a
		}
	case session.StateChanged:
		if a := s.bySeq[e.Ref.Seq]; a != nil && e.Ref.Incoming {
			a.State, a.end = e.To.String(), e.At
			switch e.To {
			case session.Cancelled:
				a.CancelReason = e.Reason
			case session.Failed:
				a.Error = e.Reason
			}
		}
	case session.AnswerWithheld:
		if a := s.bySeq[e.Ref.Seq]; a != nil && e.Answered {
			a.Withheld = true
		}
	}
}

// finish fills in the answers and tasks from the client side's log and
// times from the call's start.
func (s *serverRequests) finish(start time.Time, log *askLog) []reportAsked {
	out := make([]reportAsked, 0, len(s.list))
	for _, a := range s.list {
		a.AtMs = ms(a.at.Sub(start))
		if log != nil {
			a.Answer, a.NotSent, a.Task = log.answerOf(a.seq)
		}
		out = append(out, *a)
	}
	return out
}

// answerOf says how the request seq was answered, why that answer was
// not sent if it was not, and which task it ran as; "" and nil when it
// was no question (roots/list, tasks/get, ...).
func (l *askLog) answerOf(seq uint64) (how, notSent string, task *reportHostedTask) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.asked {
		if a.Q.Ref.Seq != seq {
			continue
		}
		if a.Q.TaskID == "" {
			return a.Answer, a.Refused, nil
		}
		t := &reportHostedTask{ID: a.Q.TaskID, Statuses: []string{}}
		for _, e := range l.events {
			if tc, ok := e.(mcp.TaskChanged); ok && tc.TaskID == a.Q.TaskID {
				t.Statuses = append(t.Statuses, tc.Status)
			}
		}
		return a.Answer, a.Refused, t
	}
	return "", "", nil
}

// printAsked lists the server's requests, the first few of many.
func printAsked(w io.Writer, asked []reportAsked, count int) {
	if count == 0 {
		return
	}
	fmt.Fprintf(w, "%-9s %s from the server\n", "asked", english.Plural(count, "request"))
	for i, a := range asked {
		if i == askedShownText {
			fmt.Fprintf(w, "  … %d more (--json lists them)\n", count-i)
			break
		}
		fmt.Fprintf(w, "  %-8s %s (id %s): %s\n", human(a.AtMs), termtext.Line(a.Method), termtext.Line(a.ID.String()), askedOutcome(a))
	}
}

// askedOutcome says what became of one request of the server's.
func askedOutcome(a reportAsked) string {
	out := a.State
	if a.Answer != "" {
		out = termtext.Line(a.Answer) + "; " + out
	}
	if a.Error != "" {
		out += ": " + termtext.Quote(a.Error)
	}
	if a.Task != nil {
		out += "; ran as task " + termtext.Line(a.Task.ID)
		if n := len(a.Task.Statuses); n > 0 {
			out += ", " + a.Task.Statuses[n-1]
		}
	}
	if a.State == session.Cancelled.String() {
		after := ""
		if !a.end.IsZero() {
			after = " after " + human(ms(a.end.Sub(a.at)))
		}
		out = "cancelled by the server" + after + ": " + termtext.Quote(a.CancelReason)
		if a.Answer != "" {
			out = termtext.Line(a.Answer) + "; " + out
		}
		if a.Withheld || a.NotSent != "" {
			out += "; the answer came too late and was not sent"
		} else {
			out += "; no answer sent"
		}
	}
	return out
}

// serverRequests is the report's list of the server's requests, once
// the stream ended.
func (r *recorder) serverRequests(start time.Time, log *askLog) ([]reportAsked, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asked.finish(start, log), r.asked.count
}

package ui

import (
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// endedWithSession reports whether an incoming row was cancelled because
// the session ended, not by the server: the session records a cancel
// time only for the server's notifications/cancelled.
func endedWithSession(r *rows.Row) bool {
	return r.Info != nil && r.Info.CancelAt.IsZero()
}

// serverCancelText says who ended a cancelled request of the server's.
func serverCancelText(r *rows.Row) string {
	if endedWithSession(r) {
		return "ended with the session"
	}
	if r.Reason == "" {
		return "cancelled by server, no reason given"
	}
	return "cancelled by server: " + termtext.Line(r.Reason)
}

// answerWords says how a question was answered: a decline or a cancel
// (the person chose nothing) in its own word, never "answered"; anything
// else "answered" and how. how keeps a policy's note ("(--elicit ...)").
func answerWords(answer string) (word, how string) {
	for _, w := range []struct{ prefix, word string }{
		{"declined", "declined"}, {"decline", "declined"}, {"cancelled", "cancelled"}, {"cancel", "cancelled"},
	} {
		if rest, ok := strings.CutPrefix(answer, w.prefix); ok && (rest == "" || rest[0] == ' ') {
			return w.word, strings.TrimSpace(rest)
		}
	}
	return "answered", answer
}

// askBadges are the notes of a request the server sent: cancelled by it,
// waiting for the person, answered, too late, its task.
func askBadges(r *rows.Row) []badge {
	var out []badge
	n := r.Ask
	if r.State == session.Cancelled {
		// No shorter wording: clipped, the reason's start still shows.
		out = append(out, badge{text: serverCancelText(r), warn: true})
	}
	if n == nil {
		return out
	}
	switch {
	case n.Waiting:
		out = append(out, badge{text: "waiting for you (enter answers)", short: []string{"waiting for you", "waiting"}, warn: true})
	case n.NotSent != "":
		out = append(out, badge{text: "your answer was not sent: too late", short: []string{"answer not sent", "not sent"}, warn: true})
	case n.Answer != "":
		word, how := answerWords(n.Answer)
		if how == "" {
			out = append(out, badge{text: word, short: []string{word}})
		} else {
			out = append(out, badge{text: word + ": " + how, short: []string{word, "✓"}})
		}
	}
	if n.TaskID != "" {
		s := "task " + n.TaskStatus
		warn := false
		if n.TaskStatus == mcp.TaskCancelled {
			s, warn = "task cancelled by server", true
		} else if n.Withdrawn != "" && n.TaskStatus == mcp.TaskFailed {
			s, warn = n.Withdrawn, true // the ttl passed, the session ended
		}
		out = append(out, badge{text: s + " (" + termtext.Line(n.TaskID) + ")", short: []string{s, "task"}, warn: warn})
	}
	if !n.CompletedAt.IsZero() {
		out = append(out, badge{text: "completed by server (+" + formatDuration(n.CompletedAt.Sub(r.Started)) + ")",
			short: []string{"completed by server", "done"}})
	}
	return out
}

// askDetail is the detail of a request the server sent: who ended it,
// what it asked, how it was answered.
func (d *detail) askDetail() []string {
	st := d.c.Styles
	r := d.row
	var out []string
	if r.State == session.Cancelled {
		line := serverCancelText(r)
		if !r.Ended.IsZero() {
			line += st.Muted.Render(" · at " + d.rel(r.Ended))
		}
		out = append(out, st.BadgeWarn.Render(line)+st.Muted.Render(" · no answer sent, as the spec asks"))
	}
	n := r.Ask
	if n == nil {
		return out
	}
	switch {
	case n.Waiting:
		out = append(out, st.BadgeWarn.Render("waiting for you")+st.Muted.Render(" · press "+d.c.Keys.Nav.Open.Help().Key+" on the row to answer"))
	case n.NotSent != "":
		out = append(out, st.BadgeWarn.Render("your answer ("+n.Answer+") was "+termtext.Line(n.NotSent)))
	case n.Answer != "":
		word, how := answerWords(n.Answer)
		out = append(out, strings.TrimSpace(st.Key.Render(word)+" "+termtext.Line(how)))
	}
	if n.Withdrawn != "" && r.State != session.Cancelled {
		out = append(out, st.BadgeWarn.Render(termtext.Line(n.Withdrawn)))
	}
	if n.TaskID != "" {
		line := st.Key.Render("task") + " " + termtext.Line(n.TaskID) + " · " + termtext.Line(n.TaskStatus)
		if n.TaskMessage != "" {
			line += st.Muted.Render(" · " + termtext.Line(n.TaskMessage))
		}
		out = append(out, line, st.Muted.Render("  mcpoke runs it for the server, which polls tasks/get and fetches tasks/result"))
	}
	if !n.CompletedAt.IsZero() {
		out = append(out, st.Key.Render("completed")+" the server sent notifications/elicitation/complete at "+d.rel(n.CompletedAt))
	}
	q := n.Q
	if q == nil {
		return out
	}
	switch {
	case q.Sampling != nil:
		out = append(out, samplingLines(st, q.Sampling)...)
	case q.Elicit != nil:
		out = append(out, st.Key.Render("message")+" "+termtext.Line(q.Elicit.Message))
		if q.Elicit.Mode == mcp.ElicitModeURL {
			out = append(out, urlLines(st, q.Elicit)...)
		} else {
			out = append(out, formLines(st, q.Elicit)...)
		}
	}
	if q.TaskID != "" && n.TaskID == "" {
		out = append(out, st.Muted.Render("task "+termtext.Quote(q.TaskID)))
	}
	return out
}

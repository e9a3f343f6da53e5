package ui

import (
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// endedWithSession reports whether an incoming row was cancelled because
// the session ended, not by the server: the session records a cancel
// time only for the server's notifications/cancelled.
func endedWithSession(r *requestRow) bool {
	return r.info != nil && r.info.CancelAt.IsZero()
}

// serverCancelText says who ended a cancelled request of the server's.
func serverCancelText(r *requestRow) string {
	if endedWithSession(r) {
		return "ended with the session"
	}
	if r.reason == "" {
		return "cancelled by server, no reason given"
	}
	return "cancelled by server: " + termtext.Line(r.reason)
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
func askBadges(r *requestRow) []badge {
	var out []badge
	n := r.ask
	if r.state == session.Cancelled {
		// No shorter wording: clipped, the reason's start still shows.
		out = append(out, badge{text: serverCancelText(r), warn: true})
	}
	if n == nil {
		return out
	}
	switch {
	case n.waiting:
		out = append(out, badge{text: "waiting for you (enter answers)", short: []string{"waiting for you", "waiting"}, warn: true})
	case n.notSent != "":
		out = append(out, badge{text: "your answer was not sent: too late", short: []string{"answer not sent", "not sent"}, warn: true})
	case n.answer != "":
		word, how := answerWords(n.answer)
		if how == "" {
			out = append(out, badge{text: word, short: []string{word}})
		} else {
			out = append(out, badge{text: word + ": " + how, short: []string{word, "✓"}})
		}
	}
	if n.taskID != "" {
		s := "task " + n.taskStatus
		warn := false
		if n.taskStatus == mcp.TaskCancelled {
			s, warn = "task cancelled by server", true
		} else if n.withdrawn != "" && n.taskStatus == mcp.TaskFailed {
			s, warn = n.withdrawn, true // the ttl passed, the session ended
		}
		out = append(out, badge{text: s + " (" + termtext.Line(n.taskID) + ")", short: []string{s, "task"}, warn: warn})
	}
	if !n.completedAt.IsZero() {
		out = append(out, badge{text: "completed by server (+" + formatDuration(n.completedAt.Sub(r.started)) + ")",
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
	if r.state == session.Cancelled {
		line := serverCancelText(r)
		if !r.ended.IsZero() {
			line += st.Muted.Render(" · at " + d.rel(r.ended))
		}
		out = append(out, st.BadgeWarn.Render(line)+st.Muted.Render(" · no answer sent, as the spec asks"))
	}
	n := r.ask
	if n == nil {
		return out
	}
	switch {
	case n.waiting:
		out = append(out, st.BadgeWarn.Render("waiting for you")+st.Muted.Render(" · press "+d.c.Keys.Nav.Open.Help().Key+" on the row to answer"))
	case n.notSent != "":
		out = append(out, st.BadgeWarn.Render("your answer ("+n.answer+") was "+termtext.Line(n.notSent)))
	case n.answer != "":
		word, how := answerWords(n.answer)
		out = append(out, strings.TrimSpace(st.Key.Render(word)+" "+termtext.Line(how)))
	}
	if n.withdrawn != "" && r.state != session.Cancelled {
		out = append(out, st.BadgeWarn.Render(termtext.Line(n.withdrawn)))
	}
	if n.taskID != "" {
		line := st.Key.Render("task") + " " + termtext.Line(n.taskID) + " · " + termtext.Line(n.taskStatus)
		if n.taskMessage != "" {
			line += st.Muted.Render(" · " + termtext.Line(n.taskMessage))
		}
		out = append(out, line, st.Muted.Render("  mcpoke runs it for the server, which polls tasks/get and fetches tasks/result"))
	}
	if !n.completedAt.IsZero() {
		out = append(out, st.Key.Render("completed")+" the server sent notifications/elicitation/complete at "+d.rel(n.completedAt))
	}
	q := n.q
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
	if q.TaskID != "" && n.taskID == "" {
		out = append(out, st.Muted.Render("task "+termtext.Quote(q.TaskID)))
	}
	return out
}

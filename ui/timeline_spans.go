package ui

import (
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/diagram"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// spansArrivedMsg: the receiver kept a batch of spans.
type spansArrivedMsg struct{}

// waitSpans waits for the next batch of server spans, so that the
// timeline redraws when they come; nil without a receiver.
func (m *Model) waitSpans() tea.Cmd {
	src := m.opts.ServerSpans
	if src == nil {
		return nil
	}
	arrived := src.Arrived()
	return func() tea.Msg {
		<-arrived
		return spansArrivedMsg{}
	}
}

// readSpans reads the server's spans of the row's trace (--otlp-receive),
// without mcpoke's own span, should that be exported to the same receiver.
func (t *timeline) readSpans() {
	t.spans = t.spans[:0]
	r := t.row
	if t.serverSpans == nil || r == nil || r.Trace.IsZero() {
		return
	}
	own := r.Trace.String()[36:52]
	for _, sp := range t.serverSpans(r.Trace.TraceIDString()) {
		if sp.SpanID != own {
			t.spans = append(t.spans, sp)
		}
	}
	sort.SliceStable(t.spans, func(i, j int) bool { return t.spans[i].Start.Before(t.spans[j].Start) })
}

// A server may send many spans for one trace, each with many events:
// the timeline draws the first of them and counts the rest.
const (
	timelineMaxSpans  = 20
	timelineMaxEvents = 5
)

// spanLines draws the server's spans below the wire lanes: a bar each
// over the request's time, the cancel marked ✕ on it, and whether the
// work ended at the cancel, after it or before it. A span still running
// is not exported, so "none yet" is all a request in flight shows.
func (t *timeline) spanLines() []string {
	r := t.row
	if t.serverSpans == nil || r == nil || r.Trace.IsZero() {
		return nil
	}
	st := t.c.Styles
	out := []string{"", st.Strong.Render(clip("server spans · trace "+r.Trace.TraceIDString(), t.width))}
	if len(t.spans) == 0 {
		return append(out, wrapLines(st.Muted.Render("none received yet (a server exports a span once its work ends)"), t.width)...)
	}
	cancel := r.SentAt()
	// The bars share one scale: from the request's start to the last
	// thing known of it.
	until := r.Ended
	if !r.State.Final() {
		until = t.c.Now()
	}
	until = later(until, cancel)
	for _, sp := range t.spans {
		until = later(until, sp.End)
	}
	span := until.Sub(r.Started)
	barW := max(t.width-4, 8)
	col := func(at time.Time) int {
		if span <= 0 {
			return 0
		}
		c := int(float64(at.Sub(r.Started)) / float64(span) * float64(barW-1))
		return min(max(c, 0), barW-1)
	}
	rel := func(at time.Time) string { return "+" + diagram.Human(ms(at.Sub(r.Started))) }
	shown := t.spans
	if len(shown) > timelineMaxSpans {
		shown = shown[:timelineMaxSpans]
	}
	for _, sp := range shown {
		name := termtext.Line(sp.Name)
		if sp.Service != "" {
			name += " [" + termtext.Line(sp.Service) + "]"
		}
		out = append(out, clip("  "+name, t.width))
		bar := []rune(strings.Repeat("·", barW))
		for i := col(sp.Start); i <= col(sp.End); i++ {
			bar[i] = '━'
		}
		if !cancel.IsZero() {
			bar[col(cancel)] = '✕'
		}
		out = append(out, st.Text.Render("  "+string(bar)))
		text := rel(sp.Start) + " → " + rel(sp.End)
		style := st.Text
		if !cancel.IsZero() {
			d := ms(sp.End.Sub(cancel))
			switch otlprecv.EndingOf(sp.End, cancel) {
			case otlprecv.EndedAt:
				text += " · ended at the cancel (" + signed(d) + ")"
				style = st.StateCompleted
			case otlprecv.EndedBefore:
				text += " · ended " + diagram.Human(-d) + " before the cancel"
			case otlprecv.EndedAfter:
				text += " · ran on " + diagram.Human(d) + " after the cancel"
				style = st.BadgeWarn
			}
		}
		if sp.Status != "" {
			text += " · " + termtext.Line(sp.Status)
			if sp.StatusMessage != "" {
				text += ": " + termtext.Line(sp.StatusMessage)
			}
		}
		for _, l := range wrapLines(text, t.width-4) {
			out = append(out, style.Render("    "+l))
		}
		for i, ev := range sp.Events {
			line := "event " + termtext.Line(ev.Name) + " " + rel(ev.At)
			if i == timelineMaxEvents {
				line = english.Plural(len(sp.Events)-i, "more event")
			}
			for _, l := range wrapLines(line, t.width-4) {
				out = append(out, st.Muted.Render("    "+l))
			}
			if i == timelineMaxEvents {
				break
			}
		}
	}
	if more := len(t.spans) - len(shown); more > 0 {
		out = append(out, st.Muted.Render(clip("  and "+english.Plural(more, "more span")+" of this trace", t.width)))
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// signed is a small difference with its sign: +1.28ms, -0.4ms.
func signed(ms float64) string {
	if ms < 0 {
		return diagram.Human(ms)
	}
	return "+" + diagram.Human(ms)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

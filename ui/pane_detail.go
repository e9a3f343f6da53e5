package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/savefile"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// detail shows everything about the selected request: params, progress
// history, result or error, cancellation and late traffic.
type detail struct {
	c      *common
	row    *rows.Row
	cancel string // what the session says about cancelling this row
	// transport is the connection's ("http": cancels say what they did
	// on the wire, where --cancel-mode makes a difference).
	transport string
	// watching: the rows are a proxied host's, whose timeouts the proxy
	// cannot see (attached), so no timeout line claims there is none.
	watching bool
	scroll   scroller
	width    int
	height   int

	focusable
	lines []string
	// The cache key of lines: the content is rebuilt only when it changes.
	builtRow     *rows.Row
	builtVersion uint64
	builtWidth   int
	builtCancel  string
	builtLive    bool
	builtCPU     string
	// cpuLine is the server CPU meter's line for a cancelled row.
	cpuLine func(seq uint64) string
}

func newDetail(c *common) *detail {
	return &detail{c: c, cpuLine: func(uint64) string { return "" }}
}

// SetSize sets the pane's size, title included.
func (d *detail) SetSize(w, h int) {
	d.width, d.height = w, h
	d.scroll.height = max(h-1, 1)
	d.scroll.clamp()
}

// SetRow shows row; a different row starts at the top.
func (d *detail) SetRow(r *rows.Row, cancelNote string) {
	if r != d.row {
		d.scroll.offset = 0
	}
	d.row, d.cancel = r, cancelNote
}

// Update implements bodyPane: scrolling keys.
func (d *detail) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if n, ok := navScroll(d.c.Keys.Nav, k, d.scroll.height); ok {
			d.Scroll(n)
		}
	}
	return nil
}

// Scroll moves the view n lines.
func (d *detail) Scroll(n int) {
	d.build()
	d.scroll.Scroll(n)
}

// build renders the content when the row or the width changed. Live
// rows (pending, cancelling) are rebuilt each frame for their times.
func (d *detail) build() {
	live := d.row != nil && !d.row.State.Final()
	cpu := ""
	if d.row != nil {
		cpu = d.cpuLine(d.row.Seq)
	}
	if d.row == d.builtRow && d.row != nil && d.row.Version() == d.builtVersion && d.width == d.builtWidth &&
		d.cancel == d.builtCancel && !live && !d.builtLive && cpu == d.builtCPU {
		return
	}
	d.builtRow, d.builtWidth, d.builtCancel, d.builtLive, d.builtCPU = d.row, d.width, d.cancel, live, cpu
	if d.row != nil {
		d.builtVersion = d.row.Version()
	}
	d.lines = d.lines[:0]
	for _, l := range d.content() {
		d.lines = append(d.lines, wrapLines(l, d.width)...)
	}
	d.scroll.total = len(d.lines)
	d.scroll.clamp()
}

// View renders the pane.
func (d *detail) View() string {
	d.build()
	st := d.c.Styles
	title := "DETAIL"
	if d.row != nil {
		title += " " + termtext.Line(d.row.Label())
	}
	if d.scroll.total > d.scroll.height {
		title += fmt.Sprintf("  %d/%d", d.scroll.offset+1, d.scroll.total)
	}
	out := []string{st.paneTitleView(d.focused, title, d.width)}
	end := min(d.scroll.offset+d.scroll.height, len(d.lines))
	if d.scroll.offset < end {
		out = append(out, d.lines[d.scroll.offset:end]...)
	}
	return padLines(out, d.width, d.height)
}

// rel renders t as a time since the request started: +1.2s.
func (d *detail) rel(t time.Time) string {
	return "+" + formatDuration(t.Sub(d.row.Started))
}

// content is the unwrapped text of the pane.
func (d *detail) content() []string {
	st := d.c.Styles
	r := d.row
	if r == nil {
		return []string{st.Muted.Render("select a request to see it here")}
	}
	if r.IsStray() {
		return d.strayContent()
	}
	var out []string
	state := rowStateStyle(st, r).Render(rowStateGlyph(d.c, r) + " " + rowStateWord(r))
	ran := " · ran " + formatDuration(r.Ran(d.c.Now()))
	if r.State == session.Cancelling || r.State == session.Cancelled {
		if !r.SentAt().IsZero() {
			ran += " (until the cancel was sent)"
		}
	}
	head := state + st.Muted.Render(" · id "+termtext.Line(r.ID.String())+ran)
	if r.Incoming {
		head += st.Muted.Render(" · sent by the server")
	}
	out = append(out, head)
	if link := r.Reissue; link != nil && !link.Of.IsZero() && !r.Lost() {
		out = append(out, st.Muted.Render("re-issue of lost request #"+termtext.Line(link.Of.String())))
	}
	// initialize is bounded by the connection's own --init-timeout.
	if t := timeoutLine(r); t != "" && !r.Incoming && r.Method != "initialize" && !d.watching {
		out = append(out, st.Muted.Render(t))
	}
	if note := d.cancel; note != "" {
		if r.IsTask() {
			note = strings.Replace(note, " to cancel,", " to cancel it with tasks/cancel,", 1)
		}
		out = append(out, st.Muted.Render(note))
	}
	if r.Incoming {
		out = append(out, d.askDetail()...)
	}
	if h := r.Hold; h != nil {
		out = append(out, st.Muted.Render(holdLine(h, d.c.Now(), r.Started)))
	}
	if !r.CancelOrNone().At.IsZero() {
		out = append(out, d.cancelLines()...)
		if l := d.cpuLine(r.Seq); l != "" {
			out = append(out, st.Key.Render("server CPU")+st.Muted.Render(" after cancel: "+l))
		}
	}
	if r.Method == "subscriptions/listen" && !r.Incoming {
		out = append(out, d.listenLines()...)
	}
	if r.IsTask() {
		out = append(out, d.taskLines()...)
	}
	// Most telling first: late traffic, the outcome, progress; params,
	// which the user wrote, last.
	if len(r.LateOrNone().Frames) > 0 || r.LateOrNone().Progress > 0 || r.LateOrNone().Responses > 0 {
		out = append(out, d.lateLines()...)
	}
	if r.Info != nil {
		switch {
		case r.Info.Error != nil:
			e := r.Info.Error
			out = append(out, st.StatusErr.Render(fmt.Sprintf("error %d", e.Code)), indent(termtext.Block(e.Message)))
			if len(e.Data) > 0 {
				out = append(out, st.Key.Render("error data"), indent(prettyJSON(e.Data)))
			}
		case len(r.Info.Result) > 0 && r.State == session.Completed:
			out = append(out, resultMetaLines(st, r.Info.Result)...)
			out = append(out, renderResult(st, r.Method, r.Info.Result)...)
			if r.Method == "resources/read" {
				out = append(out, st.Muted.Render("enter here saves the contents to a file"))
			}
			if b, ok := savefile.CallBinary(r.Info.Result); ok && r.Method == "tools/call" {
				out = append(out, st.Muted.Render("enter here saves the "+binaryName(b)+" to a file"))
			}
		case r.Info.Failure != "":
			out = append(out, st.StatusErr.Render("failed"), indent(termtext.Block(r.Info.Failure)))
		}
		if r.Lost() {
			out = append(out, st.Muted.Render(d.reissueText(r)))
		}
	} else if r.State == session.Failed && r.Reason != "" {
		out = append(out, st.StatusErr.Render("failed"), indent(termtext.Block(r.Reason)))
	}
	if r.ProgressOrNone().Count > 0 {
		out = append(out, d.progressLines()...)
	}
	if r.Duplicates > 0 {
		out = append(out, st.Badge.Render(fmt.Sprintf("duplicate responses: %d (ignored)", r.Duplicates)))
	}
	if len(r.Params) > 0 {
		out = append(out, st.Key.Render("params"), indent(prettyJSON(r.Params)))
	}
	return out
}

func (d *detail) cancelLines() []string {
	st := d.c.Styles
	r := d.row
	what := "cancel"
	if r.State == session.TimedOut {
		what = "timeout"
	}
	line := st.Key.Render(what) + " " + termtext.Quote(r.Reason) + st.Muted.Render(" · decided "+d.rel(r.CancelOrNone().At))
	sent := r.SentAt()
	switch {
	case r.CancelOrNone().SendErr != nil:
		line += st.StatusErr.Render(" · not sent: " + termtext.Line(r.CancelOrNone().SendErr.Error()))
	case !sent.IsZero() && r.CancelOrNone().Wire.ByStreamClose:
		line += st.Muted.Render(" · stream closed at " + d.rel(sent) + ", nothing sent (the cancel of protocol " + session.Era2026Version + ")")
	case !sent.IsZero() && r.CancelOrNone().Wire.StreamClosed && !r.CancelOrNone().Wire.Notified && !r.IsTask():
		// --cancel-mode close: the stream went, no message did.
		line += st.Muted.Render(" · stream closed at " + d.rel(sent) + ", nothing sent")
	case !sent.IsZero():
		line += st.Muted.Render(" · sent " + d.rel(sent) + cancelWireText(d.transport, r.CancelOrNone().Wire))
	}
	// The settle window is the session watching, not the server running:
	// its own figure, never part of "ran".
	if took, ok := r.Settled(); ok && !r.CancelOrNone().Wire.ByStreamClose && !r.IsTask() && !r.Relayed { // a task's cancel has an answer instead
		line += st.Muted.Render(" · settled after " + formatDuration(took))
	}
	out := []string{line}
	if r.CancelOrNone().Wire.ByStreamClose && r.LateOrNone().Responses == 0 && r.LateOrNone().Progress == 0 {
		out = append(out, st.Key.Render("late")+st.Muted.Render(" not observable: with its stream closed nothing more can arrive, "+
			"so the wire cannot show whether the server stopped"))
	}
	return out
}

// maxDetailProgress bounds the progress history shown.
const maxDetailProgress = 50

func (d *detail) progressLines() []string {
	st := d.c.Styles
	r := d.row
	out := []string{st.Key.Render("progress") + st.Muted.Render(" "+english.Plural(r.ProgressOrNone().Count, "update"))}
	h := r.ProgressOrNone().History
	if len(h) > maxDetailProgress {
		out = append(out, st.Muted.Render(fmt.Sprintf("  … %d more not shown", r.ProgressOrNone().Count-maxDetailProgress)))
		h = h[len(h)-maxDetailProgress:]
	}
	for _, p := range h {
		line := "  " + st.Muted.Render(fmt.Sprintf("%-7s", d.rel(p.At))) + " " + progressNumbers(&p)
		if p.Message != "" {
			line += " " + termtext.Line(p.Message)
		}
		out = append(out, line)
	}
	return out
}

// progressNumbers renders 4/10 or 4.
func progressNumbers(p *session.Progress) string {
	s := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total != nil {
		s += "/" + strconv.FormatFloat(*p.Total, 'f', -1, 64)
	}
	return s
}

func (d *detail) lateLines() []string {
	st := d.c.Styles
	r := d.row
	var out []string
	total := r.LateOrNone().Responses + r.LateOrNone().Progress + r.LateOrNone().Statuses
	kinds := fmt.Sprintf(" (%s, %d progress", english.Plural(r.LateOrNone().Responses, "response"), r.LateOrNone().Progress)
	if r.LateOrNone().Statuses > 0 {
		kinds += ", " + fmt.Sprintf("%d status", r.LateOrNone().Statuses)
	}
	out = append(out, st.BadgeWarn.Render("late traffic: "+english.Plural(total, "frame"))+
		st.Muted.Render(kinds+") · "+lateFate(r)))
	for _, f := range r.LateOrNone().Frames {
		head := "  " + st.BadgeWarn.Render(fmt.Sprintf("+%-6s", formatDuration(f.AfterCancel))) + " " +
			st.Muted.Render(fmt.Sprintf("%-8s", f.Kind)) + " "
		// One line per frame, however big: enter on the wire log shows it whole.
		data := f.Data[:min(len(f.Data), 4*d.width)]
		out = append(out, head+clip(termtext.Line(string(data)), d.width-lipWidth(head)))
	}
	if hidden := total - len(r.LateOrNone().Frames); hidden > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("  … %d more not kept", hidden)))
	}
	return out
}

func (d *detail) strayContent() []string {
	st := d.c.Styles
	r := d.row
	what := "a response for no request we sent"
	if r.StrayOrNone().Kind == session.LateProgress {
		what = "progress for no request in flight"
	}
	out := []string{
		st.BadgeWarn.Render("stray") + st.Muted.Render(" · "+what),
		st.Muted.Render("seen " + english.Plural(r.StrayOrNone().Count, "time") + "; last:"),
		indent(prettyJSON(r.StrayOrNone().Data)),
	}
	return out
}

// cancelNote says whether the selected row can be cancelled, in the
// session's words.
func cancelNote(keys *keyMap, err error, known bool) string {
	if !known {
		return ""
	}
	if err == nil {
		return "press " + keys.Requests.Cancel.Help().Key + " to cancel, " + keys.Requests.CancelWithReason.Help().Key + " to give a reason"
	}
	return "cannot cancel: " + strings.TrimPrefix(err.Error(), session.ErrNotCancellable.Error()+": ")
}

// cancelWireText says how a cancel went over Streamable HTTP, where
// closing the request's stream is a choice (--cancel-mode) and, under the
// 2025 versions, not a cancellation; elsewhere it is always the
// notification, so nothing is said.
func cancelWireText(transport string, w session.CancelWire) string {
	if transport != "http" {
		return ""
	}
	switch {
	case w.StreamClosed && w.Notified:
		return " as notification and stream closed"
	case w.StreamClosed:
		return " as stream closed, no notification"
	case w.Notified:
		return " as notification"
	}
	return ""
}

// holdLine says what the proxy did with the answer it held (mcpoke
// attach), with times from the request's start.
func holdLine(h *rows.Hold, now, started time.Time) string {
	at := "+" + formatDuration(h.At.Sub(started))
	switch {
	case h.Ended.IsZero():
		return "the proxy holds the server's answer (it came at " + at + ") from the host: held " +
			formatDuration(now.Sub(h.At)) + " so far; enter passes it on, x drops it"
	case h.Dropped:
		return "the proxy held the server's answer from " + at + " for " + formatDuration(h.Ended.Sub(h.At)) +
			", then dropped it: the host never got it"
	}
	return "the proxy held the server's answer from " + at + " for " + formatDuration(h.Ended.Sub(h.At)) + ", then passed it on to the host"
}

// lateFate says what became of a request's late traffic: mcpoke's own
// session never delivers it; a proxy passes it on to the request's
// sender.
func lateFate(r *rows.Row) string {
	if r.Relayed {
		return "passed on to its sender"
	}
	return "recorded, never delivered"
}

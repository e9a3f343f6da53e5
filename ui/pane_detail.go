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
)

// detail shows everything about the selected request: params, progress
// history, result or error, cancellation and late traffic.
type detail struct {
	c      *common
	row    *requestRow
	cancel string // what the session says about cancelling this row
	// transport is the connection's ("http": cancels say what they did
	// on the wire, where --cancel-mode makes a difference).
	transport string
	scroll    scroller
	width     int
	height    int

	focusable
	lines []string
	// The cache key of lines: the content is rebuilt only when it changes.
	builtRow     *requestRow
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
func (d *detail) SetRow(r *requestRow, cancelNote string) {
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
	live := d.row != nil && !d.row.state.Final()
	cpu := ""
	if d.row != nil {
		cpu = d.cpuLine(d.row.seq)
	}
	if d.row == d.builtRow && d.row != nil && d.row.version == d.builtVersion && d.width == d.builtWidth &&
		d.cancel == d.builtCancel && !live && !d.builtLive && cpu == d.builtCPU {
		return
	}
	d.builtRow, d.builtWidth, d.builtCancel, d.builtLive, d.builtCPU = d.row, d.width, d.cancel, live, cpu
	if d.row != nil {
		d.builtVersion = d.row.version
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
		title += " " + termtext.Line(d.row.label())
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
	return "+" + formatDuration(t.Sub(d.row.started))
}

// content is the unwrapped text of the pane.
func (d *detail) content() []string {
	st := d.c.Styles
	r := d.row
	if r == nil {
		return []string{st.Muted.Render("select a request to see it here")}
	}
	if r.stray {
		return d.strayContent()
	}
	var out []string
	state := rowStateStyle(st, r).Render(rowStateGlyph(d.c, r) + " " + rowStateWord(r))
	ran := " · ran " + formatDuration(r.ran(d.c.Now()))
	if r.state == session.Cancelling || r.state == session.Cancelled {
		if !r.sentAt().IsZero() {
			ran += " (until the cancel was sent)"
		}
	}
	head := state + st.Muted.Render(" · id "+termtext.Line(r.id.String())+ran)
	if r.incoming {
		head += st.Muted.Render(" · sent by the server")
	}
	out = append(out, head)
	// initialize is bounded by the connection's own --init-timeout.
	if t := timeoutLine(r); t != "" && !r.incoming && r.method != "initialize" {
		out = append(out, st.Muted.Render(t))
	}
	if note := d.cancel; note != "" {
		if r.isTask() {
			note = strings.Replace(note, " to cancel,", " to cancel it with tasks/cancel,", 1)
		}
		out = append(out, st.Muted.Render(note))
	}
	if r.incoming {
		out = append(out, d.askDetail()...)
	}
	if !r.cancelAt.IsZero() {
		out = append(out, d.cancelLines()...)
		if l := d.cpuLine(r.seq); l != "" {
			out = append(out, st.Key.Render("server CPU")+st.Muted.Render(" after cancel: "+l))
		}
	}
	if r.method == "subscriptions/listen" && !r.incoming {
		out = append(out, d.listenLines()...)
	}
	if r.isTask() {
		out = append(out, d.taskLines()...)
	}
	// Most telling first: late traffic, the outcome, progress; params,
	// which the user wrote, last.
	if len(r.late) > 0 || r.lateProgress > 0 || r.lateResponses > 0 {
		out = append(out, d.lateLines()...)
	}
	if r.info != nil {
		switch {
		case r.info.Error != nil:
			e := r.info.Error
			out = append(out, st.StatusErr.Render(fmt.Sprintf("error %d", e.Code)), indent(termtext.Block(e.Message)))
			if len(e.Data) > 0 {
				out = append(out, st.Key.Render("error data"), indent(prettyJSON(e.Data)))
			}
		case len(r.info.Result) > 0 && r.state == session.Completed:
			out = append(out, resultMetaLines(st, r.info.Result)...)
			out = append(out, renderResult(st, r.method, r.info.Result)...)
			if r.method == "resources/read" {
				out = append(out, st.Muted.Render("enter here saves the contents to a file"))
			}
			if b, ok := savefile.CallBinary(r.info.Result); ok && r.method == "tools/call" {
				out = append(out, st.Muted.Render("enter here saves the "+binaryName(b)+" to a file"))
			}
		case r.info.Failure != "":
			out = append(out, st.StatusErr.Render("failed"), indent(termtext.Block(r.info.Failure)))
		}
		if r.lost() {
			out = append(out, st.Muted.Render("press "+d.c.Keys.Requests.Rerun.Help().Key+" to re-issue it under a new id"))
		}
	} else if r.state == session.Failed && r.reason != "" {
		out = append(out, st.StatusErr.Render("failed"), indent(termtext.Block(r.reason)))
	}
	if r.progressCount > 0 {
		out = append(out, d.progressLines()...)
	}
	if r.duplicates > 0 {
		out = append(out, st.Badge.Render(fmt.Sprintf("duplicate responses: %d (ignored)", r.duplicates)))
	}
	if len(r.params) > 0 {
		out = append(out, st.Key.Render("params"), indent(prettyJSON(r.params)))
	}
	return out
}

func (d *detail) cancelLines() []string {
	st := d.c.Styles
	r := d.row
	what := "cancel"
	if r.state == session.TimedOut {
		what = "timeout"
	}
	line := st.Key.Render(what) + " " + termtext.Quote(r.reason) + st.Muted.Render(" · decided "+d.rel(r.cancelAt))
	sent := r.sentAt()
	switch {
	case r.cancelSendErr != nil:
		line += st.StatusErr.Render(" · not sent: " + termtext.Line(r.cancelSendErr.Error()))
	case !sent.IsZero() && r.cancelWire.ByStreamClose:
		line += st.Muted.Render(" · stream closed at " + d.rel(sent) + ", nothing sent (the cancel of protocol " + session.ModernVersion + ")")
	case !sent.IsZero() && r.cancelWire.StreamClosed && !r.cancelWire.Notified && !r.isTask():
		// --cancel-mode close: the stream went, no message did.
		line += st.Muted.Render(" · stream closed at " + d.rel(sent) + ", nothing sent")
	case !sent.IsZero():
		line += st.Muted.Render(" · sent " + d.rel(sent) + cancelWireText(d.transport, r.cancelWire))
	}
	// The settle window is the session watching, not the server running:
	// its own figure, never part of "ran".
	if took, ok := r.settled(); ok && !r.cancelWire.ByStreamClose && !r.isTask() && !r.relayed { // a task's cancel has an answer instead
		line += st.Muted.Render(" · settled after " + formatDuration(took))
	}
	out := []string{line}
	if r.cancelWire.ByStreamClose && r.lateResponses == 0 && r.lateProgress == 0 {
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
	out := []string{st.Key.Render("progress") + st.Muted.Render(" "+english.Plural(r.progressCount, "update"))}
	h := r.history
	if len(h) > maxDetailProgress {
		out = append(out, st.Muted.Render(fmt.Sprintf("  … %d more not shown", r.progressCount-maxDetailProgress)))
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
	total := r.lateResponses + r.lateProgress + r.lateStatus
	kinds := fmt.Sprintf(" (%s, %d progress", english.Plural(r.lateResponses, "response"), r.lateProgress)
	if r.lateStatus > 0 {
		kinds += ", " + fmt.Sprintf("%d status", r.lateStatus)
	}
	out = append(out, st.BadgeWarn.Render("late traffic: "+english.Plural(total, "frame"))+
		st.Muted.Render(kinds+") · "+lateFate(r)))
	for _, f := range r.late {
		head := "  " + st.BadgeWarn.Render(fmt.Sprintf("+%-6s", formatDuration(f.AfterCancel))) + " " +
			st.Muted.Render(fmt.Sprintf("%-8s", f.Kind)) + " "
		// One line per frame, however big: enter on the wire log shows it whole.
		data := f.Data[:min(len(f.Data), 4*d.width)]
		out = append(out, head+clip(termtext.Line(string(data)), d.width-lipWidth(head)))
	}
	if hidden := total - len(r.late); hidden > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("  … %d more not kept", hidden)))
	}
	return out
}

func (d *detail) strayContent() []string {
	st := d.c.Styles
	r := d.row
	what := "a response for no request we sent"
	if r.strayKind == session.LateProgress {
		what = "progress for no request in flight"
	}
	out := []string{
		st.BadgeWarn.Render("stray") + st.Muted.Render(" · "+what),
		st.Muted.Render("seen " + english.Plural(r.strayCount, "time") + "; last:"),
		indent(prettyJSON(r.strayData)),
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

// lateFate says what became of a request's late traffic: mcpoke's own
// session never delivers it; a proxy passes it on to the request's
// sender.
func lateFate(r *requestRow) string {
	if r.relayed {
		return "passed on to its sender"
	}
	return "recorded, never delivered"
}

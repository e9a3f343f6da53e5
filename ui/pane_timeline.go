package ui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/mcpoke/mcpoke/internal/diagram"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// timelineLookBack is how far before a request's start its frames are
// looked for in the wire log: a request the server sent passed the tap
// a moment before the session dated it.
const timelineLookBack = time.Second

// timeline draws the selected request's life as a sequence diagram (d):
// two lanes, time running down, the cancel, late traffic ignored, the
// timeout and settle window as spans. It reads the wire log with
// internal/diagram's Follower, the model `mcpoke diagram` draws
// transcripts with, so the screen and the headless diagram agree; it
// reads each frame once, however long it watches.
type timeline struct {
	c    *common
	wire *wireLog
	// settle is the session's settle window, for the span.
	settle time.Duration
	// serverSpans gives the spans received for a trace (--otlp-receive);
	// nil without a receiver.
	serverSpans func(traceID string) []otlprecv.Span
	spans       []otlprecv.Span // the row's, as last read

	row     *rows.Row
	start   time.Time // the wire log's start the follower counts from
	f       *diagram.Follower
	fed     int // the wire log's frames fed so far, dropped ones included
	skipped int // frames of the request the log dropped before they were read

	scroll scroller
	follow bool // stay at the bottom while the request runs
	width  int
	height int
	focusable

	lines []string
	// The cache key of lines; live drawings are redrawn each frame.
	builtRow     *rows.Row
	builtVersion uint64
	builtFed     int
	builtWidth   int
	builtLive    bool
	builtSpans   int
}

func newTimeline(c *common, w *wireLog, settle time.Duration) *timeline {
	return &timeline{c: c, wire: w, settle: settle, follow: true}
}

// SetSize sets the pane's size, title included.
func (t *timeline) SetSize(w, h int) {
	t.width, t.height = w, h
	t.scroll.height = max(h-1, 1)
	t.scroll.clamp()
}

// Reset forgets what was read: the next SetRow reads again.
func (t *timeline) Reset() { t.row, t.f = nil, nil }

// SetRow follows r; a different row starts again from its request.
func (t *timeline) SetRow(r *rows.Row) {
	if r == t.row && t.wire.start.Equal(t.start) && (r == nil || t.f != nil || r.IsStray()) {
		return
	}
	// A request in flight is followed at the bottom; a finished one is
	// read from the top.
	t.row, t.f, t.skipped, t.scroll.offset = r, nil, 0, 0
	t.follow = r != nil && !r.State.Final()
	t.start = t.wire.start
	if r == nil || r.IsStray() {
		return
	}
	t.f = diagram.NewFollower(diagram.Options{Request: r.ID.String(), Session: r.HostSession, Incoming: r.Incoming, Relayed: r.Relayed})
	// Only the frames from the request on are worth reading.
	recs, dropped := t.wire.Records()
	from := len(recs)
	for from > 0 && !recs[from-1].At.Before(r.Started.Add(-timelineLookBack)) {
		from--
	}
	t.fed = dropped + from
}

// feed reads the frames the wire log got since the last call.
func (t *timeline) feed() {
	if t.f == nil {
		return
	}
	recs, dropped := t.wire.Records()
	if t.fed < dropped {
		t.skipped += dropped - t.fed
		t.fed = dropped
	}
	for i := t.fed - dropped; i < len(recs); i++ {
		if it, ok := diagram.ItemOf(t.start, recs[i], dropped+i+1); ok {
			t.f.Add(it)
		}
	}
	t.fed = dropped + len(recs)
}

// Update implements bodyPane: scrolling keys.
func (t *timeline) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if n, ok := navScroll(t.c.Keys.Nav, k, t.scroll.height); ok {
			t.Scroll(n)
		}
	}
	return nil
}

// Scroll moves the view n lines; at the bottom it follows again.
func (t *timeline) Scroll(n int) {
	t.build()
	t.scroll.Scroll(n)
	t.follow = t.scroll.atBottom()
}

// options are the drawing options for the row now.
func (t *timeline) options() diagram.Options {
	r := t.row
	o := diagram.Options{Request: r.ID.String(), Session: r.HostSession, Incoming: r.Incoming, Settle: t.settle, Timeout: r.Timeout, Relayed: r.Relayed}
	if r.Relayed {
		o.Settle = 0 // a proxy only watches: no settle window
	}
	if !r.State.Final() {
		o.Live, o.Now = true, float64(t.c.Now().Sub(t.start).Microseconds())/1000
	}
	return o
}

// build draws the row's life when it, the frames read or the width
// changed; a live one each time, for its times.
func (t *timeline) build() {
	t.feed()
	t.readSpans()
	live := t.row != nil && !t.row.State.Final()
	if t.row == t.builtRow && t.row != nil && t.row.Version() == t.builtVersion && t.fed == t.builtFed &&
		t.width == t.builtWidth && !live && !t.builtLive && len(t.spans) == t.builtSpans {
		return
	}
	t.builtRow, t.builtFed, t.builtWidth, t.builtLive, t.builtSpans = t.row, t.fed, t.width, live, len(t.spans)
	if t.row != nil {
		t.builtVersion = t.row.Version()
	}
	t.lines = t.content()
	t.scroll.total = len(t.lines)
	if t.follow {
		t.scroll.offset = t.scroll.total
	}
	t.scroll.clamp()
}

// content is the pane's lines below its title.
func (t *timeline) content() []string {
	st := t.c.Styles
	switch {
	case t.row == nil:
		return []string{st.Muted.Render("select a request to see its timeline here")}
	case t.row.IsStray():
		return []string{st.Muted.Render("a stray frame answers no request: there is no life to draw")}
	}
	l, ok := t.f.Life(t.options())
	if !ok {
		return wrapLines(st.Muted.Render("the wire log no longer holds this request's frames (it keeps the last "+
			english.Thousands(wireLogSize)+"); W writes what it has"), t.width)
	}
	var out []string
	if t.skipped > 0 {
		out = append(out, wrapLines(st.BadgeWarn.Render(fmt.Sprintf("the wire log dropped %s of this request's time before they were drawn",
			english.Plural(t.skipped, "frame"))), t.width)...)
	}
	// The header names the server, the pane's title the request.
	l.Title, l.Server = "", ""
	for _, line := range diagram.TextLines(l, t.width) {
		out = append(out, timelineStyle(st, line.Role).Render(line.Text))
	}
	return append(out, t.spanLines()...)
}

// timelineStyle colours a line of the diagram by what it shows; the
// glyphs and words say the same without colour.
func timelineStyle(st *styles, r diagram.Role) lipgloss.Style {
	switch r {
	case diagram.RoleScale, diagram.RoleSpan:
		return st.Muted
	case diagram.RoleRequest:
		return st.WireOut
	case diagram.RoleProgress:
		return st.Text
	case diagram.RoleCancel:
		return st.StateCancelling
	case diagram.RoleAnswer:
		return st.StateCompleted
	case diagram.RoleError:
		return st.StateFailed
	case diagram.RoleIgnored:
		return st.BadgeWarn
	case diagram.RoleOutcome:
		return st.Strong
	}
	return st.Text
}

// View renders the pane.
func (t *timeline) View() string {
	t.build()
	title := "TIMELINE"
	if t.row != nil {
		title += " " + termtext.Line(t.row.Label())
	}
	if t.scroll.total > t.scroll.height {
		title += fmt.Sprintf("  %d/%d", t.scroll.offset+1, t.scroll.total)
	}
	out := []string{t.c.Styles.paneTitleView(t.focused, title, t.width)}
	end := min(t.scroll.offset+t.scroll.height, len(t.lines))
	if t.scroll.offset < end {
		out = append(out, t.lines[t.scroll.offset:end]...)
	}
	return padLines(out, t.width, t.height)
}

// timelineHelp is the help shown while the timeline is open.
type timelineHelp struct{ k *keyMap }

// ShortHelp implements help.KeyMap.
func (h timelineHelp) ShortHelp() []key.Binding {
	k := h.k
	closing := k.Requests.Timeline
	closing.SetHelp(closing.Help().Key+"/esc", "close")
	scroll := k.Nav.Down
	scroll.SetHelp("↑↓/pgup/pgdn", "scroll")
	return []key.Binding{closing, scroll, k.Requests.Cancel, k.Requests.CancelWithReason, k.Global.Focus, k.Global.Help, k.Global.Quit}
}

// FullHelp implements help.KeyMap: every key still works.
func (h timelineHelp) FullHelp() [][]key.Binding { return h.k.FullHelp() }

package diagram

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Widths of the text diagram.
const (
	// DefaultWidth fits a terminal split in two, a log line or an email.
	DefaultWidth = 60
	// minTwoColumns is the narrowest width that keeps room for labels
	// between the lanes; below it the diagram becomes a list.
	minTwoColumns = 40
	// minWidth is the narrowest width drawn at all.
	minWidth = 16
	// timeColumn is the width of the time column, the gutter included.
	timeColumn = 9
)

// pauseRows are the pauses drawn as lines of their own ("⋮ 1.00s"),
// one line more for each tenfold: a scale that stays put while a live
// drawing grows, where short waits stay close and long ones stand out.
var pauseRows = []float64{250, 2500, 25000} // ms

// Role says what a line of the text diagram shows, for a terminal that
// colours it; the text says it all without colour.
type Role uint8

const (
	RoleText     Role = iota // the title, the server, notes between the lanes
	RoleScale                // the lane names and the pauses between arrows
	RoleRequest              // the request, and the other side's requests
	RoleProgress             // progress
	RoleCancel               // a cancel, in any of its forms
	RoleAnswer               // a result, or a reply
	RoleError                // an error response
	RoleIgnored              // traffic after the cancel, ignored
	RoleSpan                 // a span's edges and words
	RoleOutcome              // how it ended
)

// TextLine is one line of the text diagram.
type TextLine struct {
	Text string
	Role Role
}

// Text renders l as plain text, width columns wide at most: two lanes
// with arrows between them, times on the left; below 40 columns, a list
// of the same arrows. No colour, nothing but characters a terminal
// prints as they are.
func Text(l Life, width int) string {
	var b strings.Builder
	for _, t := range TextLines(l, width) {
		b.WriteString(t.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// TextLines is Text line by line, each with its role.
func TextLines(l Life, width int) []TextLine {
	width = max(width, minWidth)
	t := &textDiagram{l: &l, width: width}
	for _, s := range []string{l.Title, l.Server} {
		if s != "" {
			t.wrapped(s, "  ", RoleText)
		}
	}
	if len(t.out) > 0 {
		t.add("", RoleText)
	}
	if width < minTwoColumns {
		t.list()
	} else {
		t.lanes()
	}
	t.add("", RoleText)
	t.wrapped(l.Outcome, "  ", RoleOutcome)
	return t.out
}

// textDiagram collects the lines of one drawing.
type textDiagram struct {
	l     *Life
	width int
	out   []TextLine
	// gutter is the mark left of mcpoke's lane inside a timeout or the
	// settle window; last the time of the latest row, for pauses.
	gutter rune
	last   float64
}

func (t *textDiagram) add(s string, r Role) { t.out = append(t.out, TextLine{s, r}) }

// wrapped adds s wrapped to the width, later lines after indent.
func (t *textDiagram) wrapped(s, indent string, r Role) {
	for i, line := range wrapLines(s, t.width-len(indent)) {
		if i > 0 {
			line = indent + line
		}
		t.add(line, r)
	}
}

// gap is the width between the lanes.
func (t *textDiagram) gap() int { return t.width - timeColumn - 2 }

// row adds one line of the two lanes: the time, the gutter, and what is
// between the lanes.
func (t *textDiagram) row(time string, gutter rune, inside string, r Role) {
	if ansi.StringWidth(time) > timeColumn-1 {
		// Past 999s the time needs a line of its own.
		t.add(time, r)
		time = ""
	}
	pad := strings.Repeat(" ", max(0, t.gap()-ansi.StringWidth(inside)))
	t.add(padLeft(time, timeColumn-1)+string(gutter)+"│"+inside+pad+"│", r)
}

// between adds text between the lanes, under an arrow or a span's edge.
func (t *textDiagram) between(text string, r Role) {
	for _, s := range wrapLines(text, t.gap()-4) {
		t.row("", t.gutter, "   "+s, r)
	}
}

// pause draws the time since the last row when it is long enough to
// matter: the scale of the drawing.
func (t *textDiagram) pause(at float64) {
	d := at - t.last
	for i, least := range pauseRows {
		if d < least {
			break
		}
		text := "   ⋮"
		if i == 0 {
			text += " " + Human(d)
		}
		t.row("", t.gutter, text, RoleScale)
	}
	t.last = max(t.last, at)
}

// Gutter marks: heavy for a timeout's wait, light for the settle window.
var gutters = map[SpanKind][3]rune{
	SpanTimeout: {'┏', '┃', '┗'},
	SpanSettle:  {'┌', '┊', '└'},
}

// lanes draws the two-column diagram.
func (t *textDiagram) lanes() {
	t.gutter = ' '
	client := t.l.clientName()
	t.add(strings.Repeat(" ", timeColumn)+client+strings.Repeat(" ", max(1, t.gap()+2-len(client)-len("server")))+"server", RoleScale)
	for _, st := range t.l.Steps() {
		switch st.Kind {
		case StepOpen:
			t.open(st.Span)
		case StepClose:
			t.close(st)
		case StepArrow:
			t.arrow(st.Arrow)
		}
	}
}

func (t *textDiagram) open(s *Span) {
	g, ok := gutters[s.Kind]
	if !ok {
		t.spanRule(s.Label)
		return
	}
	t.pause(s.From)
	for i, line := range wrapLines(s.Label, t.gap()-4) {
		if i == 0 {
			t.row(offset(s.From), g[0], "   "+line, RoleSpan)
			continue
		}
		t.row("", g[1], "   "+line, RoleSpan)
	}
	t.gutter = g[1]
}

func (t *textDiagram) close(st Step) {
	s := st.Span
	g, ok := gutters[s.Kind]
	if !ok {
		if saysNothingMore(t.l, st) {
			t.pause(s.To)
			t.between(nothingMore(*t.l), RoleText)
		}
		t.add(strings.Repeat("╌", t.width), RoleSpan)
		return
	}
	t.pause(s.To)
	text := spanCloseText(s)
	if s.Open {
		text = spanRunning(s)
	}
	for i, line := range wrapLines(text, t.gap()-4) {
		if i == 0 {
			t.row(offset(s.To), g[2], "   "+line, RoleSpan)
			continue
		}
		t.row("", ' ', "   "+line, RoleSpan)
	}
	t.gutter = ' '
}

func (t *textDiagram) arrow(a *Arrow) {
	t.pause(a.At)
	role := arrowRole(a)
	text := wrapLines(a.Label, t.gap()-5)
	first := text[0]
	dashes := strings.Repeat("─", max(1, t.gap()-ansi.StringWidth(first)-4))
	if a.From == Client {
		head := "▶"
		if a.Ignored && !a.PassedOn {
			head = "x"
		}
		t.row(offset(a.At), t.gutter, "─ "+first+" "+dashes+head, role)
	} else {
		head := "◀"
		if a.Ignored && !a.PassedOn {
			head = "x"
		}
		t.row(offset(a.At), t.gutter, head+"─ "+first+" "+dashes, role)
	}
	for _, s := range text[1:] {
		t.row("", t.gutter, "   "+s, role)
	}
	if a.Count > 1 && a.Until != a.At {
		t.between("until "+offset(a.Until), role)
		t.last = max(t.last, a.Until)
	}
}

// arrowRole is how an arrow is coloured.
func arrowRole(a *Arrow) Role {
	switch {
	case a.Ignored:
		return RoleIgnored
	case a.Kind.IsCancel():
		return RoleCancel
	case a.Kind == KindProgress || a.Kind == KindTaskStatus:
		return RoleProgress
	case a.Kind == KindError:
		return RoleError
	case a.Kind == KindResponse || a.Kind == KindReply:
		return RoleAnswer
	}
	return RoleRequest
}

// list draws the arrows one under the other, for narrow widths.
func (t *textDiagram) list() {
	for _, st := range t.l.Steps() {
		switch s := st.Span; st.Kind {
		case StepOpen:
			if g, ok := gutters[s.Kind]; ok {
				t.wrapped(string(g[0])+" "+offset(s.From)+" "+spanOpenText(s), "    ", RoleSpan)
			} else {
				t.spanRule(s.Label)
			}
		case StepClose:
			g, ok := gutters[s.Kind]
			switch {
			case ok && s.Open:
				t.wrapped(string(g[2])+" "+offset(s.To)+" "+spanRunning(s), "    ", RoleSpan)
			case ok && spanCloseText(s) != "":
				t.wrapped(string(g[2])+" "+offset(s.To)+" "+spanCloseText(s), "    ", RoleSpan)
			case !ok:
				if saysNothingMore(t.l, st) {
					t.wrapped(nothingMore(*t.l), "    ", RoleText)
				}
				t.add(strings.Repeat("╌", t.width), RoleSpan)
			}
		case StepArrow:
			a := st.Arrow
			dir := "→ server "
			if a.From == Server {
				dir = "← server "
				if a.Ignored && !a.PassedOn {
					dir = "x server "
				}
			}
			t.wrapped(when(*a)+" "+dir+a.Label, "    ", arrowRole(a))
		}
	}
}

// spanRule opens the time after the cancel: its label between dashes.
func (t *textDiagram) spanRule(label string) {
	for _, s := range wrapLines(label, t.width-6) {
		t.add("╌╌ "+s+" "+strings.Repeat("╌", max(1, t.width-ansi.StringWidth(s)-4)), RoleSpan)
	}
}

func padLeft(s string, n int) string {
	return strings.Repeat(" ", max(0, n-ansi.StringWidth(s))) + s
}

// wrapLines wraps s at spaces and hyphens to lines at most limit wide,
// breaking words only when they are longer than a line.
func wrapLines(s string, limit int) []string {
	limit = max(limit, 1)
	var out []string
	for _, t := range strings.Split(ansi.Wrap(s, limit, ""), "\n") {
		t = strings.TrimRight(t, " ")
		if ansi.StringWidth(t) > limit {
			out = append(out, strings.Split(ansi.Hardwrap(t, limit, true), "\n")...)
			continue
		}
		out = append(out, t)
	}
	return out
}

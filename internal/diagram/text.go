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
	// timeColumn is the width of the time column, space included.
	timeColumn = 9
)

// Text renders l as plain text, width columns wide at most: two lanes
// with arrows between them, times on the left; below 40 columns, a list
// of the same arrows. No colour, nothing but characters a terminal
// prints as they are.
func Text(l Life, width int) string {
	width = max(width, minWidth)
	var b strings.Builder
	for _, s := range []string{l.Title, l.Server} {
		if s != "" {
			writeWrapped(&b, s, width, "", "  ")
		}
	}
	if width < minTwoColumns {
		textList(&b, l, width)
	} else {
		textLanes(&b, l, width)
	}
	writeWrapped(&b, l.Outcome, width, "", "  ")
	return b.String()
}

// textLanes draws the two-column diagram.
func textLanes(b *strings.Builder, l Life, width int) {
	gap := width - timeColumn - 2
	lanes := func(time, inside string) {
		if ansi.StringWidth(time) > timeColumn-1 {
			// Past 999s the time needs a line of its own.
			b.WriteString(time + "\n")
			time = ""
		}
		b.WriteString(padLeft(time, timeColumn-1) + " │" + inside + strings.Repeat(" ", max(0, gap-ansi.StringWidth(inside))) + "│\n")
	}
	// between writes text between the lanes, under an arrow.
	between := func(text string) {
		for _, t := range wrapLines(text, gap-4) {
			lanes("", "   "+t)
		}
	}
	b.WriteString("\n" + strings.Repeat(" ", timeColumn) + "mcpoke" + strings.Repeat(" ", gap+2-len("mcpoke")-len("server")) + "server\n")
	inSpan := false
	for _, a := range l.Arrows {
		if l.After != nil && !inSpan && opensSpan(l, a) {
			spanRule(b, l.After.Label, width)
			inSpan = true
		}
		text := wrapLines(a.Label, gap-5)
		first := text[0]
		dashes := strings.Repeat("─", max(1, gap-ansi.StringWidth(first)-4))
		if a.From == Client {
			lanes(offset(a.At), "─ "+first+" "+dashes+"▶")
		} else {
			head := "◀"
			if a.Ignored {
				head = "x"
			}
			lanes(offset(a.At), head+"─ "+first+" "+dashes)
		}
		for _, t := range text[1:] {
			lanes("", "   "+t)
		}
		if a.Count > 1 && a.Until != a.At {
			between("until " + offset(a.Until))
		}
	}
	if l.After != nil && !inSpan {
		spanRule(b, l.After.Label, width)
		between("nothing more in the transcript, which ends at " + offset(l.After.To))
		inSpan = true
	}
	if inSpan {
		b.WriteString(strings.Repeat("╌", width) + "\n")
	}
	b.WriteString("\n")
}

// textList draws the arrows one under the other, for narrow widths.
func textList(b *strings.Builder, l Life, width int) {
	b.WriteString("\n")
	inSpan := false
	for _, a := range l.Arrows {
		if l.After != nil && !inSpan && opensSpan(l, a) {
			spanRule(b, l.After.Label, width)
			inSpan = true
		}
		dir := "→ server "
		if a.From == Server {
			dir = "← server "
			if a.Ignored {
				dir = "x server "
			}
		}
		writeWrapped(b, when(a)+" "+dir+a.Label, width, "", "    ")
	}
	if l.After != nil && !inSpan {
		spanRule(b, l.After.Label, width)
		writeWrapped(b, "nothing more in the transcript, which ends at "+offset(l.After.To), width, "", "    ")
		inSpan = true
	}
	if inSpan {
		b.WriteString(strings.Repeat("╌", width) + "\n")
	}
	b.WriteString("\n")
}

// opensSpan reports whether a is the first arrow drawn inside the span
// after the cancel: the cancel itself stays before it.
func opensSpan(l Life, a Arrow) bool {
	return a.At >= l.After.From && a.Kind != KindCancel && a.Kind != KindTaskCancel && a.Kind != KindStreamClosed
}

// spanRule opens the span after the cancel: its label between dashes.
func spanRule(b *strings.Builder, label string, width int) {
	for _, t := range wrapLines(label, width-6) {
		b.WriteString("╌╌ " + t + " " + strings.Repeat("╌", max(1, width-ansi.StringWidth(t)-4)) + "\n")
	}
}

// writeWrapped writes s wrapped to width, the first line after first and
// the others after indent.
func writeWrapped(b *strings.Builder, s string, width int, first, indent string) {
	lines := wrapLines(s, width-len(indent))
	for i, t := range lines {
		if i == 0 {
			b.WriteString(first + t + "\n")
			continue
		}
		b.WriteString(indent + t + "\n")
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

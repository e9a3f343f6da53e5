package ui

import (
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// stderrSize is how many stderr lines the pane keeps, newest.
const stderrSize = 2000

// stderrPane shows what the server wrote to stderr, following the end
// unless scrolled back.
type stderrPane struct{ tailPane[stderrLine] }

// stderrLine is one line of stderr: sanitized to draw, and as the server
// wrote it, for W's transcript.
type stderrLine struct {
	text string
	raw  session.StderrLine
}

func newStderrPane(c *common) *stderrPane {
	return &stderrPane{tailPane[stderrLine]{c: c, size: stderrSize}}
}

// Reset forgets every line, for a new connection.
func (p *stderrPane) Reset() { p.reset() }

// Last is the newest line, or "".
func (p *stderrPane) Last() string {
	if len(p.items) == 0 {
		return ""
	}
	return p.items[len(p.items)-1].text
}

// Raw are the lines kept, as the server wrote them.
func (p *stderrPane) Raw() []session.StderrLine {
	out := make([]session.StderrLine, len(p.items))
	for i, l := range p.items {
		out[i] = l.raw
	}
	return out
}

// Add appends lines, sanitized; the view stays at the end if it was.
func (p *stderrPane) Add(lines []session.StderrLine, dropped int) {
	items := make([]stderrLine, len(lines))
	for i, l := range lines {
		items[i] = stderrLine{text: termtext.Line(l.Line), raw: l}
	}
	p.add(items, dropped)
}

// View renders the pane; long lines wrap, and the scroll offset counts
// stderr lines.
func (p *stderrPane) View() string {
	st := p.c.Styles
	title := "SERVER STDERR " + english.Plural(len(p.items)+p.dropped, "line")
	out := []string{st.paneTitleView(p.focused, title, p.width)}
	if len(p.items) == 0 {
		out = append(out, st.Muted.Render("nothing on stderr"))
	}
	return p.view(out, func(l stderrLine) []string { return wrapHanging(l.text, p.width) })
}

// wrapHanging wraps a long line with its continuations indented, so that
// the tail of a wrapped line does not read as a line of its own.
func wrapHanging(line string, w int) []string {
	if textWidth(line) <= w || w <= 8 {
		return wrapLines(line, w)
	}
	lines := wrapLines(line, w-2)
	for i := 1; i < len(lines); i++ {
		lines[i] = "  " + lines[i]
	}
	return lines
}

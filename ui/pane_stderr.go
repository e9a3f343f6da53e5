package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// stderrSize is how many stderr lines the pane keeps, newest.
const stderrSize = 2000

// stderrPane shows what the server wrote to stderr, following the end
// unless scrolled back.
type stderrPane struct {
	c       *common
	lines   []string             // sanitized
	raw     []session.StderrLine // as the server wrote them, for W's transcript
	dropped int
	scroll  scroller

	width, height int
	focusable
}

func newStderrPane(c *common) *stderrPane { return &stderrPane{c: c} }

// Reset forgets every line, for a new connection.
func (p *stderrPane) Reset() {
	p.lines, p.raw, p.dropped, p.scroll.offset, p.scroll.total = nil, nil, 0, 0, 0
}

// SetSize sets the pane's size, title included.
func (p *stderrPane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.scroll.height = max(h-1, 1)
	p.scroll.clamp()
}

// Last is the newest line, or "".
func (p *stderrPane) Last() string {
	if len(p.lines) == 0 {
		return ""
	}
	return p.lines[len(p.lines)-1]
}

// Add appends lines, sanitized; the view stays at the end if it was.
func (p *stderrPane) Add(lines []session.StderrLine, dropped int) {
	follow := p.scroll.atBottom()
	p.dropped += dropped
	for _, l := range lines {
		p.lines = append(p.lines, termtext.Line(l.Line))
		p.raw = append(p.raw, l)
	}
	if over := len(p.lines) - stderrSize; over > stderrSize/4 {
		n := copy(p.lines, p.lines[over:])
		clear(p.lines[n:])
		p.lines = p.lines[:n]
		copy(p.raw, p.raw[over:])
		clear(p.raw[n:])
		p.raw = p.raw[:n]
		p.dropped += over
	}
	p.scroll.total = len(p.lines)
	if follow {
		p.scroll.offset = p.scroll.total
	}
	p.scroll.clamp()
}

// Update implements bodyPane: scrolling keys.
func (p *stderrPane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if n, ok := navScroll(p.c.Keys.Nav, k, p.scroll.height); ok {
			p.scroll.Scroll(n)
		}
	}
	return nil
}

// Scroll moves the view n lines.
func (p *stderrPane) Scroll(n int) { p.scroll.Scroll(n) }

// View renders the pane; long lines wrap, and the scroll offset counts
// stderr lines.
func (p *stderrPane) View() string {
	st := p.c.Styles
	title := "SERVER STDERR " + english.Plural(len(p.lines)+p.dropped, "line")
	out := []string{st.paneTitleView(p.focused, title, p.width)}
	if len(p.lines) == 0 {
		out = append(out, st.Muted.Render("nothing on stderr"))
	}
	if p.scroll.atBottom() {
		// Following: fill from the newest line up, so it is always seen.
		var tail []string
		for i := len(p.lines) - 1; i >= 0 && len(tail) < p.height-1; i-- {
			tail = append(wrapHanging(p.lines[i], p.width), tail...)
		}
		out = append(out, tail[max(len(tail)-(p.height-1), 0):]...)
		return padLines(out, p.width, p.height)
	}
	for i := p.scroll.offset; i < len(p.lines) && len(out) < p.height; i++ {
		out = append(out, wrapHanging(p.lines[i], p.width)...)
	}
	return padLines(out, p.width, p.height)
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

package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// TestStderrKeepsTheNewestLinesWithTheirRawText: past its size the pane
// lets the oldest go, the drawn text and the raw line together, and
// counts them; it follows the end until scrolled back.
func TestStderrKeepsTheNewestLinesWithTheirRawText(t *testing.T) {
	p := newStderrPane(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	p.SetSize(60, 5)
	n := stderrSize + stderrSize/4 + 1
	var lines []session.StderrLine
	for i := range n {
		lines = append(lines, session.StderrLine{Line: fmt.Sprintf("line %d\x1b[2J", i)})
	}
	p.Add(lines, 3)
	raw := p.Raw()
	if len(raw) != stderrSize || raw[0].Line != lines[n-stderrSize].Line || p.Last() != termtext.Line(lines[n-1].Line) {
		t.Fatalf("kept %d lines from %q, last %q; want %d from %q", len(raw), raw[0].Line, p.Last(), stderrSize, lines[n-stderrSize].Line)
	}
	view := ansi.Strip(p.View())
	if want := fmt.Sprintf("SERVER STDERR %d lines", n+3); !strings.Contains(view, want) || !strings.Contains(view, p.Last()) {
		t.Errorf("the pane does not count every line or show the last:\n%s", view)
	}
	p.Scroll(-10)
	p.Add([]session.StderrLine{{Line: "newest"}}, 0)
	if strings.Contains(ansi.Strip(p.View()), "newest") {
		t.Error("scrolled back, the pane still jumped to the newest line")
	}
	p.Reset()
	if p.Last() != "" || len(p.Raw()) != 0 || !strings.Contains(ansi.Strip(p.View()), "nothing on stderr") {
		t.Error("Reset kept lines")
	}
}

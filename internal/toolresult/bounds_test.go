package toolresult

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A text over the bounds is laid out up to them, whole runes only, and
// its last line says how much there was.
func TestBlockLinesBounded(t *testing.T) {
	many := strings.Repeat("x\n", 3*maxTextLines)
	lines := blockLines(many)
	if len(lines) != maxTextLines+1 || lines[maxTextLines-1] != "x" {
		t.Errorf("%d lines (last kept %q); want %d and the note", len(lines), lines[len(lines)-2], maxTextLines)
	}
	if want := "… cut here: 58.6 KB in 30,001 lines in all (mcpoke shows at most 1.0 MB or 10,000 lines)"; lines[len(lines)-1] != want {
		t.Errorf("note %q, want %q", lines[len(lines)-1], want)
	}

	wide := "a" + strings.Repeat("é", maxText) // the cut falls inside an é
	lines = blockLines(wide)
	if len(lines) != 2 || !utf8.ValidString(lines[0]) || len(lines[0]) > maxText || !strings.HasPrefix(lines[1], "… cut here: 2.0 MB in 1 line in all") {
		t.Errorf("%d lines, first %d bytes (valid %v), note %q", len(lines), len(lines[0]), utf8.ValidString(lines[0]), lines[len(lines)-1])
	}

	if got := blockLines("a\nb"); len(got) != 2 {
		t.Errorf("a short text changed: %q", got)
	}

	// Exactly the most lines, each ending in a newline: nothing is cut.
	whole := blockLines(strings.Repeat("x\n", maxTextLines))
	if last := whole[len(whole)-1]; strings.HasPrefix(last, "… cut here") {
		t.Errorf("%d whole lines said cut: %q", maxTextLines, last)
	}
}

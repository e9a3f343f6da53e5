package ui

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// painter applies a style by wrapping text in the style's escape codes,
// taken once from lipgloss. Style.Render measures and splits its input
// every call, which the table's hundreds of cells a frame cannot afford.
// Only for one-line text and styles without padding, borders or width.
type painter struct{ pre, post string }

func newPainter(s lipgloss.Style) painter {
	r := s.Render("\x00")
	i := strings.IndexByte(r, 0)
	if i < 0 {
		return painter{}
	}
	return painter{pre: r[:i], post: r[i+1:]}
}

// Render paints s.
func (p painter) Render(s ...string) string {
	t := strings.Join(s, " ")
	if t == "" || p.pre == "" {
		return t
	}
	return p.pre + t + p.post
}

// textWidth is the width of s in cells. Printable ASCII with SGR
// sequences, which is most of what the UI draws, is counted directly;
// anything else goes to ansi.StringWidth.
func textWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			// Skip a CSI sequence up to its final byte.
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
			i++
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !narrowSymbol(r) {
				return ansi.StringWidth(s)
			}
			n++
			i += size
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// narrowSymbol reports whether r is one of the one-cell symbols the UI
// draws itself (glyphs, box lines, spinner dots, ellipsis), which cannot
// start or join a wider grapheme.
func narrowSymbol(r rune) bool {
	switch {
	case r == '·', r == '…', r == '•', r == '‹', r == '›', r == '⏎':
		return true
	case r >= 0x2190 && r <= 0x21ff: // arrows
		return true
	case r >= 0x2500 && r <= 0x25ff: // box drawing, blocks, shapes
		return true
	case r >= 0x2800 && r <= 0x28ff: // braille: the spinner
		return true
	case r == '✓', r == '✗', r == '⊘':
		return true
	}
	return false
}

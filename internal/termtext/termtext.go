// Package termtext makes untrusted text safe to write to a terminal.
//
// Every string a server sends (names, descriptions, results, errors,
// stderr, server info, instructions) passes Sanitize before it reaches a
// terminal, in the TUI and in headless text output alike: a server must
// not clear the screen, set the title, write the clipboard, or reorder
// text with bidi controls.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sanitize returns s with every C0 and C1 control character, DEL, bidi
// override and invisible formatting character replaced by a visible
// escape (\x1b, \u202e). Tabs become a space. Newlines are kept only when
// keepNewlines is true; otherwise they become ⏎ so one value stays on one
// line. Invalid UTF-8 bytes are shown as \xNN.
func Sanitize(s string, keepNewlines bool) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString("⏎")
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		case isBidiOrInvisible(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Line is Sanitize for text shown on one line.
func Line(s string) string { return Sanitize(s, false) }

// Block is Sanitize for multi-line text such as results and stderr.
func Block(s string) string { return Sanitize(s, true) }

// isPlain reports whether s is printable ASCII, the common case.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// isBidiOrInvisible covers the bidi embeddings, overrides and isolates,
// the directional marks, and zero-width or line-breaking format characters
// that can hide or reorder text.
func isBidiOrInvisible(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, // LRE RLE PDF LRO RLO
		r >= 0x2066 && r <= 0x2069,                // LRI RLI FSI PDI
		r == 0x200e || r == 0x200f || r == 0x061c, // LRM RLM ALM
		r >= 0x200b && r <= 0x200d,                // zero-width space, non-joiner, joiner
		r == 0x2028 || r == 0x2029,                // line and paragraph separators
		r == 0xfeff:                               // BOM / zero-width no-break space
		return true
	}
	return false
}

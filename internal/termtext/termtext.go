// Package termtext makes untrusted text safe to write to a terminal.
//
// Every string a server sends (names, descriptions, results, errors,
// stderr, server info, instructions) passes Sanitize before it reaches a
// terminal, in the TUI and in headless text output alike: a server must
// not clear the screen, set the title, write the clipboard, reorder text
// with bidi controls or hide text in invisible characters. Hidden finds
// such hidden text so it can be shown as a finding, and EscapeJSON makes
// --json output just as safe to print.
package termtext

import (
	"strings"
	"unicode/utf8"
)

// Sanitize returns s with every character a terminal could act on or
// that is invisible replaced by a visible escape: C0 and C1 controls and
// DEL (\x1b, \u009b), format characters such as bidi controls, zero-width
// characters and tag characters (\u202e, \U000e0041), line and paragraph
// separators, noncharacters, other default-ignorable code points, and
// variation selectors that do not follow a base they belong to (see
// alwaysEscaped and selectorFits). Tabs become a space. Newlines are kept
// only when keepNewlines is true; otherwise they become ⏎ so one value
// stays on one line. Invalid UTF-8 bytes are shown as \xNN.
func Sanitize(s string, keepNewlines bool) string {
	if isPlain(s) {
		return s
	}
	first, ok := firstEscape(s)
	if !ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:first])
	for i, base := first, baseBefore(s, first); i < len(s); {
		r, size, escape := escapeAt(s, i, base)
		base = nextBase(r, escape)
		i += size
		if !escape {
			b.WriteString(s[i-size : i])
			continue
		}
		switch {
		case r == utf8.RuneError && size == 1:
			writeEscape(&b, `\x`, rune(s[i-1]), 2)
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString("⏎")
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			writeEscape(&b, `\x`, r, 2)
		case r <= 0xffff:
			writeEscape(&b, `\u`, r, 4)
		default:
			writeEscape(&b, `\U`, r, 8)
		}
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

// firstEscape returns the byte offset of the first rune in s that
// Sanitize changes, and false when there is none.
func firstEscape(s string) (int, bool) {
	base := noBase
	for i := 0; i < len(s); {
		r, size, escape := escapeAt(s, i, base)
		if escape {
			return i, true
		}
		base = nextBase(r, escape)
		i += size
	}
	return 0, false
}

// writeEscape writes prefix, then r as that many lower-case hex digits.
func writeEscape(b *strings.Builder, prefix string, r rune, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
}

// Quote is Line in double quotes, for server text quoted in a sentence.
// Line's escapes are shown once: strconv.Quote over Line would double
// their backslashes (\\x1b) and show a different string than elsewhere.
func Quote(s string) string { return `"` + Line(s) + `"` }

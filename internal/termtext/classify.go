package termtext

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/rangetable"
)

// alwaysEscaped is every code point that is never shown as itself, built
// from Unicode properties rather than a hand list so that new format
// characters are covered when Go's tables move:
//   - Cc: C0 and C1 controls and DEL, which terminals act on;
//   - Cf: format characters, all invisible: bidi controls, zero-width
//     characters, U+00AD, U+180E (Cf since Unicode 6.3), U+2060–U+2064,
//     U+FEFF, tag characters U+E0000–U+E007F, ...;
//   - Zl, Zp: U+2028 and U+2029 break lines without being a newline;
//   - Noncharacter_Code_Point: U+FDD0–U+FDEF and U+xFFFE/U+xFFFF are
//     promised never to be text, so their presence is a sign of a trick;
//   - Other_Default_Ignorable_Code_Point: invisible code points outside
//     Cf, such as the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 (used
//     as invisible identifiers) and the combining grapheme joiner U+034F.
//
// Private use (Co) is left alone: it has no control meaning, terminals
// draw it as a glyph or a box, and icon fonts (powerline, Nerd Fonts)
// live there. Unassigned code points (Cn) are left alone too: they have
// no meaning yet, and escaping them would mangle characters assigned
// after the Unicode version Go ships. Surrogates cannot appear in valid
// UTF-8; their encodings decode as invalid bytes and are escaped as such.
var alwaysEscaped = rangetable.Merge(
	unicode.Cc,
	unicode.Cf,
	unicode.Zl,
	unicode.Zp,
	unicode.Noncharacter_Code_Point,
	unicode.Other_Default_Ignorable_Code_Point,
)

// noBase marks that the previous rune cannot carry a variation selector:
// start of text, an escaped rune or another selector.
const noBase rune = -1

// escapeAt decodes the rune at s[i:] and reports whether it must be shown
// as an escape rather than as itself. base is the rune before it if that
// rune was shown as itself and was not a variation selector, else noBase.
// An invalid UTF-8 byte comes back as utf8.RuneError with size 1.
func escapeAt(s string, i int, base rune) (r rune, size int, escape bool) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, c < 0x20 || c == 0x7f
	}
	r, size = utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return r, size, true
	case unicode.Is(alwaysEscaped, r):
		return r, size, true
	case unicode.Is(unicode.Variation_Selector, r):
		return r, size, !selectorFits(base, r) || startsSelector(s[i+size:])
	}
	return r, size, false
}

// selectorFits reports whether variation selector vs may follow base.
// Variation selectors are invisible and, strung together, can smuggle one
// byte each ("emoji smuggling"), so one is shown as itself only directly
// after a base that such selectors are defined for, and never when
// another selector follows it (escapeAt checks that).
func selectorFits(base, vs rune) bool {
	switch {
	case base == noBase:
		return false
	case vs >= 0x180b && vs <= 0x180f: // Mongolian free variation selectors
		return unicode.Is(unicode.Mongolian, base)
	case vs >= 0xe0100: // ideographic variation selectors (VS17–VS256)
		return unicode.Is(unicode.Ideographic, base)
	}
	// VS1–VS16: emoji and text presentation, keycaps and standardized
	// variants. No ASCII letter, space or punctuation takes one, so
	// English prose cannot carry them; digits, '#' and '*' (keycaps) can.
	if base < utf8.RuneSelf {
		return base >= '0' && base <= '9' || base == '#' || base == '*'
	}
	return true
}

// startsSelector reports whether s begins with a variation selector.
func startsSelector(s string) bool {
	if s == "" || s[0] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.Is(unicode.Variation_Selector, r)
}

// baseBefore is the base for the rune at s[i], which has only runes
// shown as themselves before it (those before the first escape).
func baseBefore(s string, i int) rune {
	if i == 0 {
		return noBase
	}
	last, _ := utf8.DecodeLastRuneInString(s[:i])
	return nextBase(last, false)
}

// nextBase is the base for the rune after r, given whether r was escaped.
func nextBase(r rune, escaped bool) rune {
	if escaped || r >= 0x180b && unicode.Is(unicode.Variation_Selector, r) {
		return noBase
	}
	return r
}

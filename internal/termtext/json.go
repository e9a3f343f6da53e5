package termtext

import (
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// EscapeJSON makes JSON text, as encoding/json produces it, safe to print
// to a terminal: every character Sanitize would escape is written as a
// \uXXXX escape (a surrogate pair above U+FFFF), and every invalid UTF-8
// byte becomes U+FFFD. Tab, newline and carriage return are left as they
// are, since outside strings they are JSON whitespace and inside strings
// encoding/json has already escaped them. replaced reports whether an
// invalid byte was replaced, which changes the meaning, so the caller can
// flag the output; the \u escapes change nothing a JSON parser sees.
//
// In valid JSON every byte the rewrite touches lies inside a string
// literal (outside them JSON is ASCII without controls), and a \u escape
// is only ever produced from a raw character, never from text already
// escaped, so the result parses to the same values. encoding/json already
// escapes C0 controls and U+2028/U+2029 in strings, but leaves DEL, C1
// controls, bidi and format characters raw, passes json.RawMessage
// through unchecked, and replaces invalid UTF-8 in Go strings silently:
// callers that must flag that should check utf8.ValidString themselves
// before marshalling.
func EscapeJSON(js []byte) (safe []byte, replaced bool) {
	// A view of js, not a copy (a 30 MB result would be copied for a read
	// alone): js is not written while s is in use, and s is not kept.
	s := unsafe.String(unsafe.SliceData(js), len(js))
	first, ok := firstJSONEscape(s)
	if !ok {
		return js, false
	}
	out := make([]byte, 0, len(js)+16)
	out = append(out, s[:first]...)
	for i, base := first, baseBefore(s, first); i < len(s); {
		r, size, escape := escapeAt(s, i, base)
		base = nextBase(r, escape)
		i += size
		switch {
		case !escape || r == '\t' || r == '\n' || r == '\r':
			out = append(out, s[i-size:i]...)
		case r == utf8.RuneError && size == 1:
			out = utf8.AppendRune(out, utf8.RuneError)
			replaced = true
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			out = appendJSONEscape(appendJSONEscape(out, hi), lo)
		default:
			out = appendJSONEscape(out, r)
		}
	}
	return out, replaced
}

// firstJSONEscape returns the offset of the first byte EscapeJSON
// changes, and false when there is none.
func firstJSONEscape(s string) (int, bool) {
	base := noBase
	for i := 0; i < len(s); {
		r, size, escape := escapeAt(s, i, base)
		if escape && r != '\t' && r != '\n' && r != '\r' {
			return i, true
		}
		base = nextBase(r, escape)
		i += size
	}
	return 0, false
}

// appendJSONEscape appends \uXXXX for the UTF-16 code unit u.
func appendJSONEscape(b []byte, u rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
}

package termtext

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// InvalidUTF8Pointers returns the JSON Pointer (RFC 6901) of every string in js,
// key or value, that holds invalid UTF-8, in document order; a key's
// pointer names its member. EscapeJSON replaces those bytes with U+FFFD
// and says only that it did: this says where, so that output can flag
// each field whose text changed. Keys in the pointers read as a JSON
// decoder reads them, with U+FFFD for invalid bytes.
//
// js is meant to be JSON as encoding/json writes it; on malformed input
// InvalidUTF8Pointers reports what it found without failing, and never panics.
func InvalidUTF8Pointers(js []byte) []string {
	if utf8.Valid(js) {
		return nil
	}
	var (
		found []string
		stack []jsonLevel
	)
	// enter is called for each value: in an array it is the next element.
	enter := func() {
		if n := len(stack); n > 0 && !stack[n-1].object {
			top := &stack[n-1]
			top.token = strconv.Itoa(top.count)
			top.count++
		}
	}
	for i := 0; i < len(js); {
		switch c := js[i]; c {
		case '{', '[':
			enter()
			stack = append(stack, jsonLevel{object: c == '{', wantKey: c == '{'})
			i++
		case '}', ']':
			if len(stack) == 0 {
				return found
			}
			stack = stack[:len(stack)-1]
			i++
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantKey = true
			}
			i++
		case '"':
			end := stringEnd(js, i)
			lit := js[i:end]
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				stack[n-1].token, stack[n-1].wantKey = pointerToken(lit), false
			} else {
				enter()
			}
			if !utf8.Valid(lit) {
				found = append(found, pointer(stack))
			}
			i = end
		case ' ', '\t', '\n', '\r', ':':
			i++
		default: // a number, true, false or null
			enter()
			for i < len(js) && !strings.ContainsRune(",:]} \t\n\r\"{[", rune(js[i])) {
				i++
			}
		}
	}
	return found
}

// jsonLevel is one open object or array in InvalidUTF8Pointers' walk.
type jsonLevel struct {
	object  bool
	wantKey bool   // an object's next string is a key
	token   string // the current member's key or element's index
	count   int    // an array's elements so far
}

// stringEnd returns the offset just after the string literal that starts
// at js[i] (a quote), or len(js) when it is not closed.
func stringEnd(js []byte, i int) int {
	for j := i + 1; j < len(js); j++ {
		switch js[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(js)
}

// pointerToken is a key's string literal as a JSON Pointer reference
// token: decoded, then with "~" and "/" escaped.
func pointerToken(lit []byte) string {
	var key string
	if json.Unmarshal(lit, &key) != nil {
		key = strings.ToValidUTF8(strings.Trim(string(lit), `"`), "\ufffd")
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// pointer is the JSON Pointer of the current value in stack.
func pointer(stack []jsonLevel) string {
	var b strings.Builder
	for _, l := range stack {
		b.WriteByte('/')
		b.WriteString(l.token)
	}
	return b.String()
}

// Package jsonscan reads the few members of a JSON object a caller needs
// without decoding the rest: one pass over text already known to be
// valid JSON (json.Valid), no allocation but the strings it returns.
// Where encoding/json would match a key only after unescaping it or
// folding its case (Members.Odd, FoldsTo), callers leave the object to
// encoding/json, so that the two readings agree.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// String sets *s to the value of the JSON string v and reports true; a
// value of another type (null, a number...) leaves *s as it was.
func String(v []byte, s *string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		*s = Intern(raw)
		return true
	}
	var t string
	if json.Unmarshal(v, &t) != nil {
		return false
	}
	*s = t
	return true
}

// IsNull says whether v is the JSON literal null.
func IsNull(v []byte) bool { return len(v) == 4 && string(v) == "null" }

// Members walks the members of a valid JSON object: Start, then Next
// until it returns false; Key (raw, without its quotes) and Val (the
// value's text) are the current member's.
type Members struct {
	Key, Val []byte
	// Odd: the key has an escape or a byte past ASCII, so that it may
	// match a name only as encoding/json unescapes and folds it.
	Odd bool

	b []byte
	i int
}

// Start begins at v, and reports false when v is not an object.
func (o *Members) Start(v []byte) bool {
	if len(v) == 0 || v[0] != '{' {
		return false
	}
	o.b, o.i = v, SkipSpace(v, 1)
	return true
}

// Next moves to the next member, false at the object's end.
func (o *Members) Next() bool {
	b, i := o.b, o.i
	if i >= len(b) || b[i] != '"' {
		return false
	}
	o.Odd = false
	j := i + 1
	for ; j < len(b) && b[j] != '"'; j++ {
		if b[j] == '\\' {
			o.Odd = true
			j++
		} else if b[j] >= utf8.RuneSelf {
			o.Odd = true
		}
	}
	o.Key = b[i+1 : min(j, len(b))]
	i = SkipSpace(b, j+1)
	i = SkipSpace(b, i+1) // the colon
	end := SkipValue(b, i)
	o.Val = b[i:end:end]
	i = SkipSpace(b, end)
	if i < len(b) && b[i] == ',' {
		i = SkipSpace(b, i+1)
	}
	o.i = i
	return true
}

// Elements walks the elements of a valid JSON array: Start, then Next
// until it returns false; Val is the current element's text.
type Elements struct {
	Val []byte

	b []byte
	i int
}

// Start begins at v, and reports false when v is not an array.
func (e *Elements) Start(v []byte) bool {
	if len(v) == 0 || v[0] != '[' {
		return false
	}
	e.b, e.i = v, SkipSpace(v, 1)
	return true
}

// Next moves to the next element, false at the array's end.
func (e *Elements) Next() bool {
	b, i := e.b, e.i
	if i >= len(b) || b[i] == ']' {
		return false
	}
	end := SkipValue(b, i)
	e.Val = b[i:end:end]
	i = SkipSpace(b, end)
	if i < len(b) && b[i] == ',' {
		i = SkipSpace(b, i+1)
	}
	e.i = i
	return true
}

// FoldsTo says whether an ASCII key equals one of names but for case:
// encoding/json matches such a key to the name.
func FoldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if len(n) == len(key) && asciiEqualFold(key, n) {
			return true
		}
	}
	return false
}

func asciiEqualFold(b []byte, s string) bool {
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// SkipSpace returns the index of the first byte at or after i that is
// not JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the index after the valid JSON value at b[i].
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		end, _ := SkipString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := SkipString(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// SkipString returns the index after the string that starts at b[i],
// and whether it holds escapes.
func SkipString(b []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

// Interned strings: the same few methods, tool names and client names
// come in every frame; reading them allocates once. Bounded, so that a
// peer sending ever new names costs an allocation each, not memory.
var (
	internMu sync.Mutex
	interned = map[string]string{}
)

const (
	maxInterned  = 4096
	maxInternLen = 64
)

// Intern returns b as a string, the same string each time for a short
// one.
func Intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInternLen {
		return string(b)
	}
	internMu.Lock()
	defer internMu.Unlock()
	if s, ok := interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(interned) < maxInterned {
		interned[s] = s
	}
	return s
}

package session

import "github.com/mcpoke/mcpoke/internal/jsonscan"

// Members reads the top-level members of a JSON object one by one, as
// member finds one, without decoding them: a reader that needs several
// members of the same object (a server's fast path reading params and
// their _meta) reads it once instead of once per member, and an object
// inside it (_meta) once, as its own Members, instead of skipping it
// and then reading it. It assumes valid JSON, as every frame the
// session hands on is.
type Members struct {
	obj  []byte
	i    int  // the next key; after NextKey, its value; once done, after the closing brace
	done bool // the closing brace was read
}

// ReadMembers starts reading obj; ok is false when obj is not an object.
func ReadMembers(obj []byte) (m Members, ok bool) {
	i := jsonscan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return Members{}, false
	}
	m = Members{obj: obj, i: jsonscan.SkipSpace(obj, i+1)}
	if m.i < len(obj) && obj[m.i] == '}' {
		m.i, m.done = m.i+1, true
	}
	return m, true
}

// Next returns the next member: its key as written between the quotes
// (escaped tells whether it holds escapes, which the caller must decode
// before comparing it) and its value. ok is false after the last member.
func (m *Members) Next() (key []byte, escaped bool, value []byte, ok bool) {
	if key, escaped, ok = m.NextKey(); ok {
		value = m.Value()
	}
	return key, escaped, value, ok
}

// NextKey is Next without the value, which the caller then reads with
// Value, or with Inner and Resume.
func (m *Members) NextKey() (key []byte, escaped bool, ok bool) {
	obj, i := m.obj, m.i
	if m.done || i >= len(obj) || obj[i] != '"' {
		return nil, false, false
	}
	keyEnd, escaped := jsonscan.SkipString(obj, i)
	key = obj[i+1 : max(keyEnd-1, i+1)]
	i = jsonscan.SkipSpace(obj, keyEnd)
	if i >= len(obj) || obj[i] != ':' {
		m.i = len(obj)
		return nil, false, false
	}
	m.i = jsonscan.SkipSpace(obj, i+1)
	return key, escaped, true
}

// At is the offset in obj of what comes next: after NextKey, its value.
func (m *Members) At() int { return m.i }

// Value returns the value of the member NextKey returned.
func (m *Members) Value() []byte {
	end := jsonscan.SkipValue(m.obj, m.i)
	v := m.obj[m.i:end:end]
	m.after(end)
	return v
}

// Inner starts reading the value of the member NextKey returned as an
// object of its own; ok is false when it is not one (then read it with
// Value). Resume goes on after it.
func (m *Members) Inner() (inner Members, ok bool) {
	return ReadMembers(m.obj[m.i:])
}

// Resume goes on after the object that inner, from Inner, read to its
// end; false when inner stopped before it.
func (m *Members) Resume(inner *Members) bool {
	if !inner.done {
		m.i = len(m.obj)
		return false
	}
	m.after(m.i + inner.i)
	return true
}

// after moves past the value that ends at end and the comma after it.
func (m *Members) after(end int) {
	i := jsonscan.SkipSpace(m.obj, end)
	switch {
	case i < len(m.obj) && m.obj[i] == ',':
		i = jsonscan.SkipSpace(m.obj, i+1)
	case i < len(m.obj) && m.obj[i] == '}':
		i, m.done = i+1, true
	default:
		i = len(m.obj)
	}
	m.i = i
}

// Complete reports whether every member was read up to the closing
// brace: false when reading stopped early on malformed input.
func (m *Members) Complete() bool { return m.done }

package session

// Members reads the top-level members of a JSON object one by one, as
// member finds one, without decoding them: a reader that needs several
// members of the same object (a server's fast path reading params and
// their _meta) reads it once instead of once per member. It assumes
// valid JSON, as every frame the session hands on is.
type Members struct {
	obj  []byte
	i    int
	done bool // the closing brace was read
}

// ReadMembers starts reading obj; ok is false when obj is not an object.
func ReadMembers(obj []byte) (m Members, ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return Members{}, false
	}
	m = Members{obj: obj, i: skipSpace(obj, i+1)}
	if m.i < len(obj) && obj[m.i] == '}' {
		m.done = true
	}
	return m, true
}

// Next returns the next member: its key as written between the quotes
// (escaped tells whether it holds escapes, which the caller must decode
// before comparing it) and its value. ok is false after the last member.
func (m *Members) Next() (key []byte, escaped bool, value []byte, ok bool) {
	obj, i := m.obj, m.i
	if m.done || i >= len(obj) || obj[i] != '"' {
		return nil, false, nil, false
	}
	keyEnd, escaped := skipString(obj, i)
	key = obj[i+1 : max(keyEnd-1, i+1)]
	i = skipSpace(obj, keyEnd)
	if i >= len(obj) || obj[i] != ':' {
		m.i = len(obj)
		return nil, false, nil, false
	}
	i = skipSpace(obj, i+1)
	end := skipValue(obj, i)
	value = obj[i:end:end]
	i = skipSpace(obj, end)
	switch {
	case i < len(obj) && obj[i] == ',':
		i = skipSpace(obj, i+1)
	case i < len(obj) && obj[i] == '}':
		m.done = true
	default:
		i = len(obj)
	}
	m.i = i
	return key, escaped, value, true
}

// Complete reports whether every member was read up to the closing
// brace: false when Next stopped early on malformed input.
func (m *Members) Complete() bool { return m.done }

package session

import (
	"bytes"
	"encoding/json"
)

// member returns the value of key in the JSON object obj, as a sub-slice,
// or nil. Like encoding/json, the last of duplicate keys wins. It reads
// only the object's top level, skipping nested values without decoding
// them: the tool name and the progress token are looked up on every
// request, and decoding whole params for them cost more than the rest of
// the call. Keys with escapes, and obj that is not an object, take
// encoding/json's path.
func member(obj []byte, key string) []byte {
	m, ok := ReadMembers(obj)
	var found []byte
	for ok {
		k, escaped, v, more := m.Next()
		switch {
		case !more:
			return found
		case escaped:
			return memberSlow(obj, key)
		case string(k) == key:
			found = v
		}
	}
	return nil
}

func memberSlow(obj []byte, key string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return nil
	}
	return m[key]
}

// stringMember returns the string value of key in obj, or "".
func stringMember(obj []byte, key string) string { return stringValue(member(obj, key)) }

// stringValue decodes v, a JSON value, when it is a string; else "".
func stringValue(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

// Member returns the value of key in the JSON object obj, or nil, as
// member reads it: without decoding the rest of obj.
func Member(obj []byte, key string) json.RawMessage { return member(obj, key) }

// Tool is params.name of an incoming tools/call, as the session read it
// once for the request table ("" for other methods).
func (in *Incoming) Tool() string { return in.r.info.Tool }

// ParamsMember returns the value of key in the request's params, or nil,
// without decoding the rest of them.
func (in *Incoming) ParamsMember(key string) json.RawMessage { return member(in.Params, key) }

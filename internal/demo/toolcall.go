package demo

import (
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/session"
)

// toolCall is what callImmediately reads of a tools/call's params, in
// one pass over them and one over their _meta.
type toolCall struct {
	arguments []byte // nil when absent
	meta      requestMeta
}

// requestMeta is the modern members of _meta, as sent (nil when absent).
type requestMeta struct {
	version, logLevel, clientInfo []byte
}

// readToolCall reads params; ok is false when the handlers could read
// them otherwise than this reading does, or would answer otherwise:
// encoding/json matches struct fields without case ("NAME", "_Meta"), and
// merges an object sent twice, so such keys, escaped keys and repeated
// ones are left to them; so are a task and the demo's working report.
func readToolCall(params []byte) (p toolCall, ok bool) {
	m, ok := session.ReadMembers(params)
	if !ok {
		return p, false
	}
	var meta []byte
	for {
		key, escaped, v, more := m.Next()
		if !more {
			break
		}
		switch {
		case escaped:
			return p, false
		case string(key) == "name":
		case string(key) == "arguments":
			if !setOnce(&p.arguments, v) {
				return p, false
			}
		case string(key) == "_meta":
			if !setOnce(&meta, v) {
				return p, false
			}
		case string(key) == "task":
			return p, false // callTool runs tasks
		case foldsTo(key, "name", "arguments", "_meta", "task"):
			return p, false
		}
	}
	if !m.Complete() {
		return p, false
	}
	if meta == nil || string(meta) == "null" {
		return p, true
	}
	p.meta, ok = readRequestMeta(meta)
	return p, ok
}

// readRequestMeta reads _meta's modern members in one pass.
func readRequestMeta(meta []byte) (rm requestMeta, ok bool) {
	m, ok := session.ReadMembers(meta)
	if !ok {
		return rm, false
	}
	for {
		key, escaped, v, more := m.Next()
		if !more {
			break
		}
		var set bool
		switch {
		case escaped:
			return rm, false
		case string(key) == session.MetaProtocolVersion:
			set = setOnce(&rm.version, v)
		case string(key) == session.MetaLogLevel:
			set = setOnce(&rm.logLevel, v)
		case string(key) == session.MetaClientInfo:
			set = setOnce(&rm.clientInfo, v)
		case string(key) == WorkingMeta:
			return rm, false // callTool adds the report
		case string(key) == "progressToken" || string(key) == session.MetaClientCapabilities:
			set = true // the session's, and what tasks read
		case foldsTo(key, session.MetaProtocolVersion, session.MetaLogLevel, session.MetaClientInfo, session.MetaClientCapabilities):
			return rm, false
		default:
			set = true
		}
		if !set {
			return rm, false
		}
	}
	return rm, m.Complete()
}

// setOnce sets *dst to v unless it was set: a member sent twice is left
// to encoding/json.
func setOnce(dst *[]byte, v []byte) bool {
	if *dst != nil {
		return false
	}
	*dst = v
	return true
}

// foldsTo reports whether encoding/json could match key to one of names
// though it is none of them: equal without case, or not ASCII (Unicode
// folding matches the Kelvin sign to k).
func foldsTo(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if string(key) != n && equalFoldASCII(key, n) {
			return true
		}
	}
	return false
}

func equalFoldASCII(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

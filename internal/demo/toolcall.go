package demo

import (
	"bytes"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/session"
)

// toolCall is what callImmediately reads of a tools/call's params, in
// one pass over them and their _meta.
type toolCall struct {
	arguments []byte // nil when absent
	meta      requestMeta
}

// requestMeta is the modern members of _meta, as sent (nil when absent).
type requestMeta struct {
	version, logLevel, clientInfo []byte
	// hasCaps: clientCapabilities is an object, as a modern request's must.
	hasCaps bool
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
	metaSeen, nameSeen := false, false
	for {
		key, escaped, more := m.NextKey()
		switch {
		case !more:
			return p, m.Complete()
		case escaped:
			return p, false
		case string(key) == "arguments":
			if !setOnce(&p.arguments, m.Value()) {
				return p, false
			}
		case string(key) == "_meta":
			if metaSeen {
				return p, false
			}
			metaSeen = true
			if p.meta, ok = readMeta(&m); !ok {
				return p, false
			}
		case string(key) == "name":
			// encoding/json takes the last name but refuses any that is
			// not a string: a repeated one is left to callTool.
			if nameSeen {
				return p, false
			}
			nameSeen = true
			m.Value()
		case string(key) == "task":
			return p, false // callTool runs tasks
		case foldsTo(key, "name", "arguments", "_meta", "task"):
			return p, false
		default:
			m.Value()
		}
	}
}

// readMeta reads the value of params' _meta, where m is, in one pass:
// null is no _meta, anything else but an object is left to the handlers.
func readMeta(m *session.Members) (rm requestMeta, ok bool) {
	inner, ok := m.Inner()
	if !ok {
		return rm, string(m.Value()) == "null"
	}
	rm, ok = readRequestMeta(&inner)
	return rm, ok && m.Resume(&inner)
}

// readRequestMeta reads _meta's modern members.
func readRequestMeta(m *session.Members) (rm requestMeta, ok bool) {
	for {
		key, escaped, v, more := m.Next()
		if !more {
			return rm, m.Complete()
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
		case string(key) == session.MetaClientCapabilities:
			if rm.hasCaps {
				return rm, false
			}
			rm.hasCaps, set = len(v) > 0 && v[0] == '{', true // what tasks read
		case string(key) == "progressToken":
			set = true // the session's
		case foldsTo(key, session.MetaProtocolVersion, session.MetaLogLevel, session.MetaClientInfo, session.MetaClientCapabilities):
			return rm, false
		default:
			set = true
		}
		if !set {
			return rm, false
		}
	}
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
		if string(key) != n && bytes.EqualFold(key, []byte(n)) { // ASCII: checked above
			return true
		}
	}
	return false
}

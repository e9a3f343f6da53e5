package session

import "bytes"

// requestKeys reads what the session keeps of a peer's request params
// in one pass over them: params.name of a tools/call (toolName) and
// _meta.progressToken (progressTokenOf). In 2026-07-28 the client's _meta
// comes first and is the bulk of params; reading each separately skipped
// it twice. An escaped key takes the two readers' own path.
func requestKeys(method string, params []byte) (tool string, token ID) {
	m, ok := ReadMembers(params)
	var name, meta []byte
	for ok {
		key, escaped, v, more := m.Next()
		if !more {
			break
		}
		if escaped {
			token, _ = progressTokenOf(params)
			return toolName(method, params), token
		}
		switch string(key) { // the last of duplicate keys wins, as in member
		case "name":
			name = v
		case "_meta":
			meta = v
		}
	}
	if method == "tools/call" {
		tool = stringValue(name)
	}
	if meta == nil || !bytes.Contains(params, []byte(`"progressToken"`)) {
		return tool, ID{} // as progressTokenOf: a key written with escapes is not looked for
	}
	if t := member(meta, "progressToken"); t != nil && string(t) != "null" {
		if id, err := ParseID(t); err == nil {
			token = id
		}
	}
	return tool, token
}

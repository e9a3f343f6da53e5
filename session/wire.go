package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// JSON-RPC error codes used by the session.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// RPCError is a JSON-RPC error object, sent or received.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error. The codes of 2026-07-28 are
// explained in words, since their numbers say little.
func (e *RPCError) Error() string {
	if why := e.Explain(); why != "" {
		return fmt.Sprintf("%s (code %d: %s)", e.Message, e.Code, why)
	}
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// wireMessage is any JSON-RPC 2.0 message as it arrives. Which fields are
// present tells what it is.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

func (m *wireMessage) isRequest() bool      { return m.Method != "" && m.ID != nil }
func (m *wireMessage) isNotification() bool { return m.Method != "" && m.ID == nil }
func (m *wireMessage) isResponse() bool {
	return m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil)
}

// appendRequest appends a request or, with a zero id, a notification.
// Hand-built because every call goes through here: it costs one buffer
// instead of encoding/json's reflection.
func appendRequest(b []byte, id ID, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if !id.IsZero() {
		b = append(b, `"id":`...)
		b = append(b, id.raw...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = appendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// appendResult appends a success response.
func appendResult(b []byte, id ID, result json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id.raw...)
	b = append(b, `,"result":`...)
	if len(result) == 0 {
		result = json.RawMessage(`{}`)
	}
	b = append(b, result...)
	return append(b, '}')
}

// appendError appends an error response.
func appendError(b []byte, id ID, e *RPCError) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id.IsZero() {
		b = append(b, "null"...)
	} else {
		b = append(b, id.raw...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, `}}`...)
}

// appendString appends s as a JSON string; plain ASCII takes the fast path.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// marshalParams turns params into JSON text. json.RawMessage and []byte
// pass through untouched; nil means no params.
func marshalParams(p any) (json.RawMessage, error) {
	switch v := p.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode params: %w", err)
	}
	if bytes.Equal(b, []byte("null")) {
		return nil, nil
	}
	return b, nil
}

// withProgressToken returns params with _meta.progressToken set to token.
func withProgressToken(params json.RawMessage, token ID) (json.RawMessage, error) {
	return withMeta(params, []byte(`"progressToken":`+token.raw))
}

// withMeta returns params with members (encoded object members, such as
// "progressToken":3, without braces) set in its _meta, replacing keys it
// had. Objects without a _meta key get them spliced in without a decode,
// and a _meta object is rewritten where it stands; positional params
// cannot carry _meta and are returned as they are.
func withMeta(params json.RawMessage, members []byte) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 {
		b := make([]byte, 0, len(members)+12)
		b = append(b, `{"_meta":{`...)
		b = append(b, members...)
		return append(b, "}}"...), nil
	}
	if trimmed[0] != '{' {
		return params, nil
	}
	// A key may spell _meta with escapes ("\u005fmeta").
	hasMeta := bytes.Contains(trimmed, []byte(`"_meta"`)) || bytes.Contains(trimmed, []byte(`\u`))
	if hasMeta {
		if merged, ok := withMetaInPlace(trimmed, members); ok {
			return merged, nil
		}
	}
	// A "_meta" nested deeper (in a requestState, say) is not params' own.
	if !hasMeta || member(trimmed, "_meta") == nil {
		rest := bytes.TrimSpace(trimmed[1:])
		b := make([]byte, 0, len(trimmed)+len(members)+16)
		b = append(b, `{"_meta":{`...)
		b = append(b, members...)
		b = append(b, '}')
		if len(rest) > 0 && rest[0] != '}' {
			b = append(b, ',')
		}
		return append(b, rest...), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return nil, fmt.Errorf("params are not a JSON object: %w", err)
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok && len(m) > 0 && string(m) != "null" {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("params._meta is not an object: %w", err)
		}
	}
	var add map[string]json.RawMessage
	if err := json.Unmarshal(append(append([]byte{'{'}, members...), '}'), &add); err != nil {
		return nil, fmt.Errorf("_meta members: %w", err)
	}
	for k, v := range add {
		meta[k] = v
	}
	mb, _ := json.Marshal(meta)
	obj["_meta"] = mb
	return json.Marshal(obj)
}

// withMetaInPlace merges members into the top-level _meta object of
// params, rewriting only that object: params may be megabytes (a
// requestState round), and decoding them whole to add a member cost
// three copies. false when there is no such object where it can be
// rewritten (no _meta at the top, a null one, an escaped key): the caller
// takes the general path.
func withMetaInPlace(params, members []byte) (json.RawMessage, bool) {
	m, ok := ReadMembers(params)
	start, end := -1, -1
	for ok {
		key, escaped, more := m.NextKey()
		if !more {
			break
		}
		if escaped {
			return nil, false
		}
		at := m.At()
		v := m.Value()
		if string(key) == "_meta" {
			start, end = at, at+len(v) // the last of duplicates wins
		}
	}
	if start < 0 || params[start] != '{' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(params[start:end], &obj) != nil {
		return nil, false
	}
	var add map[string]json.RawMessage
	if json.Unmarshal(append(append([]byte{'{'}, members...), '}'), &add) != nil {
		return nil, false
	}
	for k, v := range add {
		obj[k] = v
	}
	mb, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	out := make([]byte, 0, len(params)-(end-start)+len(mb))
	out = append(out, params[:start]...)
	out = append(out, mb...)
	return append(out, params[end:]...), true
}

// progressTokenOf returns the _meta.progressToken of incoming params.
func progressTokenOf(params json.RawMessage) (ID, bool) {
	if !bytes.Contains(params, []byte(`"progressToken"`)) {
		return ID{}, false
	}
	token := member(member(params, "_meta"), "progressToken")
	if token == nil || string(token) == "null" {
		return ID{}, false
	}
	id, err := ParseID(token)
	return id, err == nil
}

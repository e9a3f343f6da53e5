package demo

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/mcpoke/mcpoke/internal/toolschema"
	"github.com/mcpoke/mcpoke/session"
)

// callImmediately answers a tools/call for a tool that answers at once
// (echo, fail) on the session's reader, its arguments decoded once and
// its name as the session read it: no goroutine, no context, no second
// parse. A request of protocol 2026-07-28 gets what eraAware adds to its
// result. Anything else, including params it cannot read and a modern
// version the demo does not speak, is declined for callTool (through
// eraAware), which says what is wrong.
func (srv *server) callImmediately(in *session.Incoming) (any, error, bool) {
	t := srv.find(in.Tool())
	if t == nil || t.immediate == nil || bytes.Contains(in.Params, []byte(`"task"`)) {
		return nil, nil, false
	}
	modern := bytes.Contains(in.Params, []byte(session.MetaProtocolVersion))
	if modern && !speaksModern(in) {
		return nil, nil, false
	}
	var args any = map[string]any{}
	if raw := in.ParamsMember("arguments"); raw != nil && string(raw) != "null" {
		v, err := toolschema.Decode(raw)
		if err != nil {
			return nil, nil, false
		}
		args = v
	}
	if err := t.Schema.ValidateValue(args); err != nil {
		return nil, invalidParams("invalid arguments for %s: %v", t.Name, err), true
	}
	obj, ok := args.(map[string]any)
	if !ok { // the schema allowed a non-object: let run decode it
		return nil, nil, false
	}
	res, err := t.immediate(obj)
	if err != nil || !modern {
		return res, err, true
	}
	if tr, ok := res.(toolResult); ok {
		raw, err := modernToolResult(tr)
		return raw, err, true
	}
	raw, err := modernResult(res, false, demoImplementation())
	return raw, err, true
}

// serverInfoJSON is who the demo says it is in modern results, encoded
// once: it never changes while the demo runs.
var serverInfoJSON = sync.OnceValue(func() json.RawMessage {
	info, _ := json.Marshal(demoImplementation())
	return info
})

// modernToolResult is modernResult for a tool's result, not cacheable,
// spliced instead of decoded and encoded again: the same bytes (the keys
// of a toolResult sort between _meta and resultType, as the map in
// modernResult sorts them) at a fraction of the cost.
func modernToolResult(res toolResult) (json.RawMessage, error) {
	body, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	info := serverInfoJSON()
	b := make([]byte, 0, len(body)+len(info)+len(session.MetaServerInfo)+40)
	b = append(b, `{"_meta":{"`+session.MetaServerInfo+`":`...)
	b = append(b, info...)
	b = append(b, "},"...)
	b = append(b, body[1:len(body)-1]...)
	b = append(b, `,"resultType":"complete"}`...)
	return b, nil
}

// speaksModern reports whether a request's _meta names a modern version
// the demo speaks, reading only _meta's members it needs. False for
// anything eraAware would answer otherwise: no version there (the bytes
// were elsewhere in params), one it does not speak, or a _meta that
// ReadRequestMeta could not read (it then takes the request for legacy).
func speaksModern(in *session.Incoming) bool {
	meta := in.ParamsMember("_meta")
	if !speaksVersion(session.Member(meta, session.MetaProtocolVersion)) {
		return false
	}
	if level := session.Member(meta, session.MetaLogLevel); level != nil && level[0] != '"' && string(level) != "null" {
		return false
	}
	info := session.Member(meta, session.MetaClientInfo)
	if last := lastClientInfo.Load(); info == nil || last != nil && string(info) == *last {
		return true
	}
	var impl *session.Implementation
	if json.Unmarshal(info, &impl) != nil {
		return false
	}
	s := string(info)
	lastClientInfo.Store(&s)
	return true
}

// lastClientInfo is the last clientInfo that decoded: a client sends the
// same one with every request, so each is decoded once.
var lastClientInfo atomic.Pointer[string]

// speaksVersion reports whether raw, a JSON string, is a modern version
// the demo speaks; versions have no escapes, so a string with one is not.
func speaksVersion(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	v := raw[1 : len(raw)-1]
	for _, m := range session.ModernVersions {
		if string(v) == m && session.IsModern(m) {
			return true
		}
	}
	return false
}

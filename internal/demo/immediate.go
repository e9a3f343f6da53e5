package demo

import (
	"bytes"

	"github.com/mcpoke/mcpoke/internal/toolschema"
	"github.com/mcpoke/mcpoke/session"
)

// callImmediately answers a tools/call for a tool that answers at once
// (echo, fail) on the session's reader, its arguments decoded once and
// its name as the session read it: no goroutine, no context, no second
// parse. Anything else, including params it cannot read, is declined
// for callTool, which says what is wrong.
func (srv *server) callImmediately(in *session.Incoming) (any, error, bool) {
	t := srv.find(in.Tool())
	if t == nil || t.immediate == nil || !plainCall(in.Params) {
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
	return res, err, true
}

// plainCall reports whether a tools/call is one the fast path may answer:
// not task-augmented (callTool refuses or runs those as tasks) and not of
// protocol 2026-07-28 (eraAware adds what a modern result carries, and
// checks the Mcp-Param headers). A byte search: no decoding on this path.
func plainCall(params []byte) bool {
	return !bytes.Contains(params, []byte(`"task"`)) && !bytes.Contains(params, []byte(session.MetaProtocolVersion))
}

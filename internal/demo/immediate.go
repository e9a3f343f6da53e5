package demo

import (
	"github.com/mcpoke/mcpoke/internal/toolschema"
	"github.com/mcpoke/mcpoke/session"
)

// callImmediately answers a tools/call for a tool that answers at once
// (echo, fail) on the session's reader, with its params decoded once:
// no goroutine, no context, no second parse for the name or the
// arguments. Anything else, including params it cannot read, is declined
// for callTool, which says what is wrong.
func (srv *server) callImmediately(in *session.Incoming) (any, error, bool) {
	v, err := toolschema.Decode(in.Params)
	if err != nil {
		return nil, nil, false
	}
	p, _ := v.(map[string]any)
	name, _ := p["name"].(string)
	t := srv.find(name)
	if t == nil || t.immediate == nil {
		return nil, nil, false
	}
	args := p["arguments"]
	if args == nil { // absent or null: no arguments
		args = map[string]any{}
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

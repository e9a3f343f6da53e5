package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/toolschema"
	"github.com/mcpoke/mcpoke/session"
)

// tool is one demo tool: what tools/list says about it and what it does.
type tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`

	// run does the work, with arguments already checked against
	// InputSchema.
	run    func(ctx context.Context, srv *server, in *session.Incoming, args json.RawMessage) (any, error)
	schema *toolschema.Schema
}

// allTools returns the demo's tools in the order tools/list shows them.
func allTools() []*tool {
	tools := []*tool{sleepTool(), stubbornTool(), floodTool(), echoTool(), failTool()}
	for _, t := range tools {
		s, err := toolschema.Compile(t.InputSchema)
		if err != nil {
			panic(fmt.Sprintf("demo tool %s: %v", t.Name, err)) // a bug in this package
		}
		t.schema = s
	}
	return tools
}

func (srv *server) find(name string) *tool {
	for _, t := range srv.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (srv *server) names() string {
	names := make([]string, len(srv.tools))
	for i, t := range srv.tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// listTools answers tools/list; the demo's list fits one page.
func (srv *server) listTools(context.Context, *session.Incoming) (any, error) {
	return map[string]any{"tools": srv.tools}, nil
}

// callTool answers tools/call: an unknown tool or arguments that break the
// tool's schema get -32602, as the tools spec asks for protocol errors.
func (srv *server) callTool(ctx context.Context, in *session.Incoming) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return nil, invalidParams("tools/call: params must be an object with name and arguments: %v", err)
	}
	t := srv.find(p.Name)
	if t == nil {
		return nil, invalidParams("unknown tool %q; this server has: %s", p.Name, srv.names())
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if err := t.schema.Validate(args); err != nil {
		return nil, invalidParams("invalid arguments for %s: %v", t.Name, err)
	}
	return t.run(ctx, srv, in, args)
}

func invalidParams(format string, a ...any) *session.RPCError {
	return &session.RPCError{Code: session.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// decodeArgs fills into, which holds the schema's defaults, from args that
// already passed the schema.
func decodeArgs(args json.RawMessage, into any) error {
	if err := json.Unmarshal(args, into); err != nil {
		return invalidParams("arguments: %v", err)
	}
	return nil
}

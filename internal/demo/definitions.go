package demo

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// definitions holds what tools/list says about the tools that defineTool
// makes: tools/NAME.json, the entry as a client reads it, schema and all.
//
//go:embed tools/*.json
var definitions embed.FS

// defineTool makes the tool whose entry is tools/NAME.json. Its run gets
// the arguments decoded over defaults, which are the schema's defaults,
// so that each tool states its arguments once, as a struct.
func defineTool[A any](name string, defaults A, run func(context.Context, *server, *session.Incoming, A) (any, error)) *tool {
	entry, err := definitions.ReadFile("tools/" + name + ".json")
	var def mcp.Tool
	if err == nil {
		def, err = mcp.ParseTool(entry)
	}
	if err == nil && def.Name != name {
		err = fmt.Errorf("tools/%s.json names the tool %q", name, def.Name)
	}
	if err != nil {
		panic(fmt.Sprintf("demo tool %s: %v", name, err)) // a bug in this package
	}
	return &tool{Tool: def, run: func(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
		args := defaults
		if err := decodeArgs(raw, &args); err != nil {
			return nil, err
		}
		return run(ctx, srv, in, args)
	}}
}

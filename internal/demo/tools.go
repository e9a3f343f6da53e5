package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// tool is one demo tool: what tools/list says about it, as the one Tool
// type clients read, and what it does. The server side adds only run.
type tool struct {
	mcp.Tool
	// run does the work, with arguments already checked against
	// InputSchema.
	run func(ctx context.Context, srv *server, in *session.Incoming, args json.RawMessage) (any, error)
	// immediate, if set, answers at once from arguments that flat found
	// certainly valid, appending its result's members to b (see
	// callImmediately); run stays for the same answer through a handler.
	immediate func(args, b []byte) ([]byte, error)
	// flat checks the arguments of an immediate tool without the
	// generic validator; set by prepareTools.
	flat *flatCheck
}

// allTools returns the demo's tools in the order tools/list shows them.
// Each definition is read back as a client would read it, which compiles
// its schema once and fixes the entry tools/list sends.
func allTools() []*tool {
	return prepareTools([]*tool{
		defineTool("sleep", sleepArgs{Seconds: 10, Steps: 10}, runSleep),
		defineTool("stubborn", stubbornArgs{Seconds: 5}, runStubborn),
		defineTool("flood", floodArgs{Count: 10000}, runFlood),
		echoTool(), failTool(), askTool(), rootsTool(),
		defineTool("research", researchArgs{Seconds: 5}, runResearch),
		defineTool("spin", spinArgs{SpinSeconds: 5}, runSpin),
	})
}

// The tool sets, prepared once for every server of this process: reading
// a definition back compiles its schema, and over HTTP in 2026-07-28 each
// request has a server of its own (twice: its Mcp-Param headers are
// checked by another), which prepared them all on every call. A prepared
// tool is never changed, and a compiled schema validates concurrently;
// the slices are clipped, so that a server appending to its own copy
// never writes into one another server reads.
var (
	preparedTools = sync.OnceValue(func() []*tool { return slices.Clip(allTools()) })
	// preparedConformanceTools is the conformance tools of a modern
	// request (ServeRequest): those of both eras, and those that ask with
	// input_required.
	preparedConformanceTools = sync.OnceValue(func() []*tool {
		return slices.Clip(prepareTools(slices.Concat(conformanceTools(), conformanceContentTools(), conformanceMRTRTools())))
	})
	// preparedConformanceAskTools is the conformance tools of both eras
	// and those that ask with requests of their own, for a legacy session
	// (ServeConn).
	preparedConformanceAskTools = sync.OnceValue(func() []*tool {
		return slices.Clip(prepareTools(slices.Concat(conformanceTools(), conformanceContentTools(), conformanceAskTools())))
	})
)

// prepareTools reads each definition back as a client would.
func prepareTools(tools []*tool) []*tool {
	for _, t := range tools {
		entry, err := json.Marshal(t.Tool)
		if err == nil {
			t.Tool, err = mcp.ParseTool(entry)
		}
		if err == nil {
			err = t.SchemaErr
		}
		if err != nil {
			panic(fmt.Sprintf("demo tool %s: %v", t.Name, err)) // a bug in this package
		}
		if t.immediate != nil {
			t.flat = compileFlat(t.InputSchema)
		}
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
	list := make([]mcp.Tool, len(srv.tools))
	for i, t := range srv.tools {
		list[i] = t.Tool
	}
	return map[string]any{"tools": list}, nil
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
	if err := t.Schema.Validate(args); err != nil {
		return nil, invalidParams("invalid arguments for %s: %v", t.Name, err)
	}
	if res, err, asTask := srv.runAsTask(in, t, args); asTask {
		return res, err
	}
	others, done := srv.tasks.working.start(in)
	defer done()
	res, err := t.run(ctx, srv, in, args)
	if err == nil && asksWorking(in.Params) {
		res = withWorking(res, others)
	}
	return res, err
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

package demo

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// Options add to what the demo server offers.
type Options struct {
	// ConformanceTools adds the tools the official MCP conformance suite
	// (@modelcontextprotocol/conformance) calls by name, each a feature the
	// demo has anyway: text, a tool error, progress and a resumed stream.
	ConformanceTools bool
}

const noArgsSchema = `{"type": "object", "properties": {}, "additionalProperties": false}`

// conformanceTools returns the suite's fixtures, named as it calls them.
func conformanceTools() []*tool {
	fixture := func(name, description string, run func(context.Context, *server, *session.Incoming, json.RawMessage) (any, error)) *tool {
		return &tool{Tool: mcp.Tool{Name: name, Description: description, InputSchema: json.RawMessage(noArgsSchema)}, run: run}
	}
	return []*tool{
		fixture("test_simple_text", "Conformance fixture: answers with one text.",
			func(context.Context, *server, *session.Incoming, json.RawMessage) (any, error) {
				return textResult("This is a simple text response for testing."), nil
			}),
		fixture("test_error_handling", "Conformance fixture: a result with isError.",
			func(context.Context, *server, *session.Incoming, json.RawMessage) (any, error) {
				return errorResult("This tool intentionally returns an error for testing"), nil
			}),
		fixture("test_tool_with_progress", "Conformance fixture: progress 0, 50 and 100 of 100, 50ms apart.", runConformanceProgress),
		fixture("test_reconnection", "Conformance fixture: closes the connection of its SSE stream mid-call; "+
			"the client resumes the stream with Last-Event-ID and gets the answer there.", runConformanceReconnection),
		loggingFixture("test_tool_with_logging"),
		loggingFixture("test_logging_tool"),
	}
}

func runConformanceProgress(ctx context.Context, _ *server, in *session.Incoming, _ json.RawMessage) (any, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := in.NotifyProgress(p, 100, ""); err != nil {
			return nil, err
		}
	}
	return textResult("progress reported: 0, 50 and 100 of 100"), nil
}

// runConformanceReconnection closes its stream's connection once the
// client surely holds it, then answers after the client has had time to
// reconnect: the answer is stored and replayed either way.
func runConformanceReconnection(ctx context.Context, srv *server, in *session.Incoming, _ json.RawMessage) (any, error) {
	closer, ok := srv.conn.(transport.RequestStreamCloser)
	if !ok {
		return errorResult("this transport has no request streams to close; use --http"), nil
	}
	if err := pause(ctx, 100*time.Millisecond); err != nil {
		return nil, err
	}
	if _, err := closer.CloseRequestStream([]byte(in.ID.String())); err != nil {
		return nil, err
	}
	if err := pause(ctx, 200*time.Millisecond); err != nil {
		return nil, err
	}
	return textResult("Reconnection test completed successfully"), nil
}

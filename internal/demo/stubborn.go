package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const stubbornSchema = `{
  "type": "object",
  "properties": {
    "seconds": {"type": "number", "minimum": 0, "maximum": 3600, "default": 5,
      "description": "How long the work takes, in seconds; it answers after this even if cancelled."}
  },
  "additionalProperties": false
}`

type stubbornArgs struct {
	Seconds float64 `json:"seconds"`
}

func stubbornTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:  "stubborn",
			Title: "Stubborn: ignores cancellation",
			Description: "Works for a while and answers, even after notifications/cancelled: " +
				"the response arrives late, as it does from servers that do not stop their work.",
			InputSchema: json.RawMessage(stubbornSchema),
		},
		run: runStubborn,
	}
}

func runStubborn(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
	args := stubbornArgs{Seconds: 5}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	// ctx now ends only when the session does, not on the peer's cancel.
	in.IgnoreCancellation()
	if srv.ignoring != nil {
		srv.ignoring(in.ID)
	}
	t := time.NewTimer(seconds(args.Seconds))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	return textResult(fmt.Sprintf("finished after %gs, cancelled or not", args.Seconds)), nil
}

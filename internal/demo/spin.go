package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const spinSchema = `{
  "type": "object",
  "properties": {
    "spinSeconds": {"type": "number", "minimum": 0, "maximum": 600, "default": 5,
      "description": "How long it keeps one core busy, in seconds; it answers after this even if cancelled."}
  },
  "additionalProperties": false
}`

type spinArgs struct {
	SpinSeconds float64 `json:"spinSeconds"`
}

// spinTool burns CPU and ignores cancellation: work that goes on after
// the cancel, for mcpoke check's CPU meter (check 10) to see. Its
// duration argument is not one check's probe takes for a duration, so
// that the probe never starts it by itself.
func spinTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:  "spin",
			Title: "Spin: burns CPU, ignores cancellation",
			Description: "Keeps one core busy for a while and answers, even after notifications/cancelled: " +
				"the server's CPU time shows that its work did not stop (mcpoke check, check 10).",
			InputSchema: json.RawMessage(spinSchema),
		},
		run: runSpin,
	}
}

func runSpin(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
	args := spinArgs{SpinSeconds: 5}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	// ctx now ends only when the session does, not on the peer's cancel.
	in.IgnoreCancellation()
	end := time.Now().Add(seconds(args.SpinSeconds))
	n := uint64(0)
	for time.Now().Before(end) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for range 10000 {
			n = n*6364136223846793005 + 1442695040888963407
		}
	}
	return textResult(fmt.Sprintf("spun %gs (%x), cancelled or not", args.SpinSeconds, n&0xff)), nil
}

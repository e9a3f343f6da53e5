package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const floodSchema = `{
  "type": "object",
  "properties": {
    "count": {"type": "integer", "minimum": 0, "maximum": 1000000, "default": 10000,
      "description": "How many progress notifications to send before the result."},
    "interval_ms": {"type": "integer", "minimum": 0, "maximum": 60000, "default": 0,
      "description": "Pause between notifications, in milliseconds; 0 sends them in one burst."}
  },
  "additionalProperties": false
}`

type floodArgs struct {
	Count      int `json:"count"`
	IntervalMs int `json:"interval_ms"`
}

func floodTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:  "flood",
			Title: "Flood of progress notifications",
			Description: "Sends a burst of progress notifications, then a result: checks that a client " +
				"keeps up and loses none. Stops if cancelled.",
			InputSchema: json.RawMessage(floodSchema),
		},
		run: runFlood,
	}
}

func runFlood(ctx context.Context, _ *server, in *session.Incoming, raw json.RawMessage) (any, error) {
	args := floodArgs{Count: 10000}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	interval := time.Duration(args.IntervalMs) * time.Millisecond
	for i := 1; i <= args.Count; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := in.NotifyProgress(float64(i), float64(args.Count), ""); err != nil {
			return nil, err
		}
		if interval > 0 && i < args.Count {
			if err := pause(ctx, interval); err != nil {
				return nil, err
			}
		}
	}
	return textResult(fmt.Sprintf("sent %d progress notifications", args.Count)), nil
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

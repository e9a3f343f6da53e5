package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const sleepSchema = `{
  "type": "object",
  "properties": {
    "seconds": {"type": "number", "minimum": 0, "maximum": 3600, "default": 10,
      "description": "How long the work takes, in seconds."},
    "steps": {"type": "integer", "minimum": 1, "maximum": 100000, "default": 10,
      "description": "How many equal steps; a progress notification follows each one."}
  },
  "additionalProperties": false
}`

type sleepArgs struct {
	Seconds float64 `json:"seconds"`
	Steps   int     `json:"steps"`
}

func sleepTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:  "sleep",
			Title: "Sleep, with progress",
			Description: "Works for a while, reporting progress after each step. Honours cancellation: " +
				"on notifications/cancelled it stops at once and sends no response.",
			InputSchema: json.RawMessage(sleepSchema),
		},
		run: runSleep,
	}
}

func runSleep(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
	args := sleepArgs{Seconds: 10, Steps: 10}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	step := seconds(args.Seconds) / time.Duration(args.Steps)
	t := time.NewTimer(step)
	defer t.Stop()
	for i := 1; i <= args.Steps; i++ {
		select {
		case <-ctx.Done():
			// The session has logged the cancel and drops whatever we return.
			srv.log.Info("sleep stopped", "id", in.ID.String(), "stepsDone", i-1, "steps", args.Steps)
			return nil, ctx.Err()
		case <-t.C:
		}
		t.Reset(step)
		if err := in.NotifyProgress(float64(i), float64(args.Steps), fmt.Sprintf("step %d of %d", i, args.Steps)); err != nil {
			return nil, err
		}
	}
	return textResult(fmt.Sprintf("slept %gs in %d steps", args.Seconds, args.Steps)), nil
}

// seconds converts a JSON number of seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const researchSchema = `{
  "type": "object",
  "properties": {
    "seconds": {"type": "number", "minimum": 0, "maximum": 3600, "default": 5,
      "description": "How long the research takes, in seconds, in four stages."}
  },
  "additionalProperties": false
}`

type researchArgs struct {
	Seconds float64 `json:"seconds"`
}

// researchStages are the status messages of a research task.
var researchStages = []string{"gathering sources", "reading", "comparing findings", "writing the report"}

func researchTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:  "research",
			Title: "Research: a task",
			Description: "Runs as a task (MCP 2025-11-25, taskSupport required; in 2026-07-28 the tasks extension): " +
				"answers at once with a task, reports each stage as its status and progress, and stops on tasks/cancel.",
			InputSchema: json.RawMessage(researchSchema),
			Execution:   mcp.Execution{TaskSupport: mcp.TaskRequired},
		},
		run: runResearch,
	}
}

func runResearch(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
	args := researchArgs{Seconds: 5}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	n := len(researchStages)
	step := seconds(args.Seconds) / time.Duration(n)
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for i, stage := range researchStages {
		setTaskMessage(ctx, fmt.Sprintf("%s (%d of %d)", stage, i+1, n))
		t.Reset(step)
		select {
		case <-ctx.Done():
			srv.log.Info("research stopped", "id", in.ID.String(), "stage", stage)
			return nil, ctx.Err()
		case <-t.C:
		}
		// The call's progress token stays valid for the task's life.
		_ = in.NotifyProgress(float64(i+1), float64(n), stage+" done")
	}
	return textResult(fmt.Sprintf("research done in %gs: %d stages", args.Seconds, n)), nil
}

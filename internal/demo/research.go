package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// researchStages are the status messages of a research task.
var researchStages = []string{"gathering sources", "reading", "comparing findings", "writing the report"}

func runResearch(ctx context.Context, srv *server, in *session.Incoming, args researchArgs) (any, error) {
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

type researchArgs struct {
	Seconds float64 `json:"seconds"`
}

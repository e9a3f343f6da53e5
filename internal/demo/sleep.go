package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

func runSleep(ctx context.Context, srv *server, in *session.Incoming, args sleepArgs) (any, error) {
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

type sleepArgs struct {
	Seconds float64 `json:"seconds"`
	Steps   int     `json:"steps"`
}

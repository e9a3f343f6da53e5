package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

func runFlood(ctx context.Context, _ *server, in *session.Incoming, args floodArgs) (any, error) {
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

type floodArgs struct {
	Count      int `json:"count"`
	IntervalMs int `json:"interval_ms"`
}

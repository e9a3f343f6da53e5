package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// The tools that go on after notifications/cancelled: stubborn answers
// late, spin keeps a core busy. Both stop only with their session.

// runStubborn works for a while and answers even after a cancel, late,
// as servers that do not stop their work do.
func runStubborn(ctx context.Context, srv *server, in *session.Incoming, args stubbornArgs) (any, error) {
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

// runSpin burns CPU and ignores cancellation: work that goes on after
// the cancel, for mcpoke check's CPU meter (check 10) to see. Its
// duration argument is not one check's probe takes for a duration, so
// that the probe never starts it by itself.
func runSpin(ctx context.Context, srv *server, in *session.Incoming, args spinArgs) (any, error) {
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

type stubbornArgs struct {
	Seconds float64 `json:"seconds"`
}

type spinArgs struct {
	SpinSeconds float64 `json:"spinSeconds"`
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// pingResult is one ping's round trip, or why it got none.
type pingResult struct {
	Ms       float64 `json:"ms"`
	Error    string  `json:"error,omitempty"`
	TimedOut bool    `json:"timedOut,omitempty"`
}

// pings are the round trips of one ping run, and why it stopped before
// --count when it did.
type pings struct {
	pings   []pingResult
	stopped string
}

// exit is 4 when a bound ended a ping or the run (as call's timeout), 1
// when a ping failed otherwise, else nil.
func (r pings) exit() error {
	failed := false
	for _, p := range r.pings {
		if p.TimedOut {
			return quietExit(ExitTimedOut)
		}
		failed = failed || p.Error != ""
	}
	if r.stopped != "" {
		return quietExit(ExitTimedOut)
	}
	if failed {
		return quietExit(ExitFailed)
	}
	return nil
}

// pingRun sends count pings one after another: --timeout bounds each,
// --max-timeout the whole run, so that a server that answers slowly (or
// never) holds ping no longer than both allow.
func pingRun(ctx context.Context, s *session.Session, count int, within timeoutFlags) pings {
	var r pings
	start := time.Now()
	for i := range count {
		bound, by := within.timeout, "--timeout "+within.timeout.String()
		if within.maxTimeout > 0 {
			left := within.maxTimeout - time.Since(start)
			if left <= 0 {
				r.stopped = fmt.Sprintf("--max-timeout %s ended the run after %d of %d pings", within.maxTimeout, i, count)
				break
			}
			if bound <= 0 || left < bound {
				bound, by = left, "--max-timeout "+within.maxTimeout.String()+" of the whole run"
			}
		}
		r.pings = append(r.pings, pingOnce(ctx, s, bound, by))
		if ctx.Err() != nil {
			break
		}
	}
	return r
}

// pingOnce sends one ping bounded by bound (0: none); by names the flag
// that set the bound, for the line that says it ended.
func pingOnce(ctx context.Context, s *session.Session, bound time.Duration, by string) pingResult {
	start := time.Now()
	method := mcp.PingMethod(s)
	c, err := mcp.StartPing(ctx, s, bound)
	if err == nil {
		select {
		case <-c.Done():
			_, _, err = c.Result()
		case <-ctx.Done():
			_ = s.Request(c.Ref()).Cancel("context: " + context.Cause(ctx).Error())
			err = ctx.Err()
		}
	}
	p := pingResult{Ms: ms(time.Since(start))}
	switch {
	case errors.Is(err, session.ErrTimedOut):
		p.TimedOut = true
		p.Error = fmt.Sprintf("no answer to %s (request %s) within %s; cancelled on the wire", method, c.ID(), by)
	case err != nil:
		p.Error = err.Error()
	}
	return p
}

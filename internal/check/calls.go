package check

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// Bounds on the small waits of a run.
const (
	// pollEvery is how often a wait on the request table looks again.
	pollEvery = 5 * time.Millisecond
	// cancelDelay is when a call of a tool without progress is
	// cancelled: long enough for its work to have started.
	cancelDelay = 300 * time.Millisecond
)

// call starts the chosen tool.
func (r *runner) call(ctx context.Context) (*session.Call, error) {
	return r.s.Call(ctx, "tools/call", r.params, session.CallOptions{})
}

// underway waits until the call is surely being worked on: its first
// progress when the tool reports progress, else cancelDelay. It reports
// false when the call ended first.
func (r *runner) underway(ctx context.Context, c *session.Call) bool {
	deadline := time.Now().Add(cancelDelay)
	if r.tool.Progress {
		deadline = time.Now().Add(max(3*r.firstProgress, r.opts.ProbeWindow))
	}
	for time.Now().Before(deadline) {
		select {
		case <-c.Done():
			return false
		case <-ctx.Done():
			return false
		case <-time.After(pollEvery):
		}
		if r.tool.Progress {
			if info, ok := r.s.Request(c.Ref()).Info(); ok && info.ProgressCount > 0 {
				return true
			}
		}
	}
	select {
	case <-c.Done():
		return false
	default:
		return true
	}
}

// sleep waits d, or less when ctx ends or the session does.
func (r *runner) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-r.s.Done():
	}
}

// ping is the barrier: its answer comes after everything the server sent
// before it. It returns the round trip, or why there was none.
func (r *runner) ping(ctx context.Context) (time.Duration, error) {
	begin := time.Now()
	c, err := mcp.StartPing(ctx, r.s, r.pingTimeout())
	if err != nil {
		return 0, err
	}
	_, _, err = c.Result()
	rtt := time.Since(begin)
	if err == nil {
		r.sawRoundTrip(rtt)
	}
	r.watch.caughtUp(c.Seq(), time.Second)
	return rtt, err
}

// callUnderway starts recording the wire and calls the tool, waiting
// until the call is under way; skip says why it is not (the recording
// then stopped). what is what the part will do to the call's stream.
func (r *runner) callUnderway(ctx context.Context, what string) (c *session.Call, ref session.Request, skip string) {
	r.wire.start()
	c, ref, skip = r.startCall(ctx, "its stream could be "+what)
	if skip != "" {
		r.wire.stop()
	}
	return c, ref, skip
}

// startCall calls the tool and waits until the call is under way; skip
// says why it is not: it could not be sent, or it ended first (before says what the
// part was to do to it).
func (r *runner) startCall(ctx context.Context, before string) (c *session.Call, ref session.Request, skip string) {
	c, err := r.call(ctx)
	if err != nil {
		return nil, ref, fmt.Sprintf("tools/call could not be sent: %v", err)
	}
	ref = r.s.Request(c.Ref())
	if !r.underway(ctx, c) {
		info, _ := ref.Info()
		return nil, ref, fmt.Sprintf("the call ended %s after %s, before %s", info.State, human(info.Elapsed(time.Now())), before)
	}
	return c, ref, ""
}

// dead says why the connection ended, or "" while it lives.
func (r *runner) dead() string {
	select {
	case <-r.s.Done():
	default:
		return ""
	}
	why := "the connection ended"
	if err := r.s.Err(); err != nil {
		why += ": " + err.Error()
	}
	return why + r.rootCause()
}

// closed says whether the session has ended.
func (r *runner) closed() bool {
	select {
	case <-r.s.Done():
		return true
	default:
		return false
	}
}

// failDead grades res a failure of the MUST that the connection
// survives, when it died.
func (r *runner) failDead(res *Result, after string) bool {
	why := r.dead()
	if why == "" {
		return false
	}
	res.Rule, res.Status = ruleGraceful, Fail
	res.Evidence.fact("%s %s", why, after)
	return true
}

// deathWait bounds the wait for the session to notice that a request
// failed because the connection died.
const deathWait = time.Second

// failDeadAfterError is failDead after a request failed: the session
// may learn of the connection's end (and the server's exit status) only
// a moment after a write to it failed.
func (r *runner) failDeadAfterError(res *Result, after string) bool {
	t := time.NewTimer(deathWait)
	defer t.Stop()
	select {
	case <-r.s.Done():
	case <-t.C:
	}
	return r.failDead(res, after)
}

// pingFailed says why a ping got no answer, in words.
func (r *runner) pingFailed(err error) string {
	switch {
	case errors.Is(err, session.ErrTimedOut):
		return fmt.Sprintf("no answer to ping within %s (the slowest round trip measured before was %s; --ping-timeout sets it)",
			r.pingTimeout(), human(r.slowestRoundTrip()))
	case errors.Is(err, session.ErrSessionClosed):
		return "the connection had ended"
	}
	return "the liveness probe (ping, or server/discover in 2026-07-28) failed: " + err.Error()
}

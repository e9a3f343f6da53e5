package mcp

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// Defaults for FollowOptions.
const (
	// DefaultPollInterval is how often a task is polled when the server
	// suggests no interval.
	DefaultPollInterval = time.Second
	// MinPollInterval floors the server's suggestion, so that a server
	// cannot make mcpoke poll in a tight loop.
	MinPollInterval = 50 * time.Millisecond
	// DefaultPollTimeout bounds each tasks/get.
	DefaultPollTimeout = 30 * time.Second
)

// FollowOptions tune FollowTask. The zero value uses the defaults.
type FollowOptions struct {
	// PollInterval is used when the server suggests none.
	PollInterval time.Duration
	// PollTimeout bounds each tasks/get.
	PollTimeout time.Duration
	// Side answers the inputRequests of an extension task (2026-07-28)
	// with the same screens and policies as any server request; nil
	// leaves them unanswered.
	Side *ClientSide
}

// FollowTask drives the task row ref until it is final, and returns its
// last snapshot: it polls tasks/get at the server's pollInterval (the
// session applies the answers and notifications/tasks/status), and sends
// tasks/result once the task needs input (input_required: the server's
// own requests arrive before its answer) or has ended, since its result
// comes only that way. The session's rules do the rest: a cancel is
// tasks/cancel, and what arrives after it is late. It returns early only
// when ctx ends, which leaves the task as it is.
func FollowTask(ctx context.Context, s *session.Session, ref session.Ref, opts FollowOptions) (session.RequestInfo, error) {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = DefaultPollTimeout
	}
	h := s.Request(ref)
	clk := s.Clock()
	var polling, fetching *session.Call
	nextPoll := time.Time{}
	in := newTaskInputs(opts.Side, s, ref)
	defer in.stop()
	for {
		info, changed, ok := h.Watch()
		if !ok {
			return info, fmt.Errorf("task %s: %w", ref.ID, session.ErrUnknownRequest)
		}
		if info.State.Final() {
			return info, nil
		}
		if info.Task != nil && info.Task.Extension {
			in.answer(info, opts.PollTimeout)
		}
		if fetching == nil && NeedsResult(info) {
			c, err := h.FetchTaskResult(ctx, session.CallOptions{})
			if err != nil {
				return info, err
			}
			fetching = c
		}
		now := clk.Now()
		if nextPoll.IsZero() {
			nextPoll = now.Add(pollEvery(info, opts))
		}
		if !now.Before(nextPoll) {
			if polling == nil || isDone(polling) {
				c, err := h.GetTask(ctx, session.CallOptions{Timeout: opts.PollTimeout})
				if err != nil {
					return info, err
				}
				polling = c
			}
			if fetching != nil && isDone(fetching) {
				fetching = nil // it ended without ending the task: ask again
			}
			nextPoll = now.Add(pollEvery(info, opts))
		}
		tick := make(chan struct{})
		t := clk.AfterFunc(nextPoll.Sub(now), func() { close(tick) })
		select {
		case <-changed:
		case <-tick:
		case <-in.done:
			// Its questions answered: poll at once for what follows.
			in.busy, nextPoll = false, clk.Now()
		case <-ctx.Done():
			t.Stop()
			return info, ctx.Err()
		}
		t.Stop()
	}
}

// NeedsResult reports whether a task row's result is to be fetched now:
// its task needs input or has ended, and the row still takes its result
// (it is pending, or its cancel was refused because the task had ended).
func NeedsResult(info session.RequestInfo) bool {
	if info.Task == nil || info.Task.Extension {
		return false // the extension's result comes with tasks/get
	}
	switch info.Task.State.Status {
	case session.TaskInputRequired, session.TaskCompleted, session.TaskFailed:
	default:
		return false
	}
	return info.State == session.Pending || (info.State == session.Cancelling && info.Task.Cancel.Refused())
}

// pollEvery is the interval between polls: the server's, floored, or
// the default.
func pollEvery(info session.RequestInfo, opts FollowOptions) time.Duration {
	if info.Task != nil {
		if d := info.Task.State.PollEvery(); d > 0 {
			return max(d, MinPollInterval)
		}
	}
	return opts.PollInterval
}

func isDone(c *session.Call) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

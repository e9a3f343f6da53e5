package mcp

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// followGets starts a task whose server suggests pollInterval ms (none
// when negative), follows it with opts while moving the fake clock, and returns
// the fake time into the follow of each tasks/get, up to n of them. The
// first tasks/get is never answered when hang is set.
func followGets(t *testing.T, opts FollowOptions, n int, hang bool, pollInterval int) []time.Duration {
	t.Helper()
	clk := clocktest.New()
	var start time.Time
	task := map[string]any{"taskId": "t1", "status": "working"}
	if pollInterval >= 0 {
		task["pollInterval"] = pollInterval
	}
	gets := make(chan time.Duration, 16)
	var answered atomic.Bool
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/call": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"task": task}, nil
		},
		"tasks/get": func(ctx context.Context, _ *session.Incoming) (any, error) {
			gets <- clk.Now().Sub(start)
			if hang && !answered.Swap(true) {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return task, nil
		},
	}})
	cli := session.New(a, session.Config{Clock: clk})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	ref := startTask(t, cli)
	start = clk.Now()
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	go func() { _, _ = FollowTask(ctx, cli, ref, opts) }()
	var at []time.Duration
	deadline := time.Now().Add(waitLimit)
	for len(at) < n {
		select {
		case d := <-gets:
			at = append(at, d)
			continue
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for tasks/get %d (fake time %s into the follow)", waitLimit, len(at)+1, clk.Now().Sub(start))
		}
		clk.Advance(50 * time.Millisecond)
		time.Sleep(time.Millisecond)
	}
	return at
}

// FollowTask polls at the server's pollInterval over the one given; a
// pollInterval of 0 suggests nothing.
func TestFollowTaskPollsAtTheServersInterval(t *testing.T) {
	if at := followGets(t, FollowOptions{PollInterval: time.Second}, 1, false, 3000); at[0] < 3*time.Second {
		t.Errorf("with the server's pollInterval 3000 the first tasks/get came %s in", at[0])
	}
	if at := followGets(t, FollowOptions{PollInterval: time.Second}, 1, false, 0); at[0] < time.Second {
		t.Errorf("with the server's pollInterval 0 the first tasks/get came %s in; want the given 1s", at[0])
	}
}

// Without the server's pollInterval, FollowTask polls at the one given,
// or at DefaultPollInterval when none is.
func TestFollowTaskPollsAtTheGivenInterval(t *testing.T) {
	if at := followGets(t, FollowOptions{PollInterval: 3 * time.Second}, 1, false, -1); at[0] < 3*time.Second {
		t.Errorf("with PollInterval 3s the first tasks/get came %s in", at[0])
	}
	if at := followGets(t, FollowOptions{}, 1, false, -1); at[0] < DefaultPollInterval {
		t.Errorf("with no PollInterval the first tasks/get came %s in; want %s", at[0], DefaultPollInterval)
	}
}

// A tasks/get the server never answers is given up after PollTimeout, and
// the next poll goes out.
func TestFollowTaskGivesUpAPollAfterPollTimeout(t *testing.T) {
	at := followGets(t, FollowOptions{PollInterval: time.Second, PollTimeout: 2 * time.Second}, 2, true, -1)
	if at[1] >= DefaultPollTimeout {
		t.Errorf("the second tasks/get came %s in, after the default poll timeout; want about 4s (1s + 2s + 1s)", at[1])
	}
}

// With no PollTimeout, a tasks/get the server never answers is given up
// after DefaultPollTimeout.
func TestFollowTaskGivesUpAPollAfterTheDefaultTimeout(t *testing.T) {
	at := followGets(t, FollowOptions{PollInterval: time.Second}, 2, true, -1)
	if at[1] < DefaultPollTimeout || at[1] > DefaultPollTimeout+5*time.Second {
		t.Errorf("the second tasks/get came %s in; want about %s (1s + %s + 1s)", at[1], DefaultPollTimeout+2*time.Second, DefaultPollTimeout)
	}
}

package session

import (
	"context"
	"errors"
	"testing"
	"time"
)

// SetTimeout re-arms a pending request's timeout from now: the old one no
// longer fires, the new one does, and the request is cancelled on the wire.
func TestSetTimeoutRearms(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"}, CallOptions{Timeout: time.Minute})
	h.readFrame()
	h.clock.Advance(50 * time.Second)
	if err := h.s.Request(c.Ref()).SetTimeout(5 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if info, _ := h.s.Request(c.Ref()).Info(); info.Timeout != 5*time.Minute {
		t.Fatalf("Timeout = %v, want 5m", info.Timeout)
	}
	h.clock.Advance(4 * time.Minute)
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending {
		t.Fatalf("the old timeout fired: %v", info.State)
	}
	h.clock.Advance(time.Minute)
	if _, st, err := waitResult(t, c); st != TimedOut || !errors.Is(err, ErrTimedOut) {
		t.Fatalf("got %v %v, want timed out", st, err)
	}
	if m := h.readFrame(); m.Method != "notifications/cancelled" {
		t.Fatalf("after the timeout the client wrote %q, want the cancel", m.Method)
	}
	if err := h.s.Request(c.Ref()).SetTimeout(time.Second); !errors.Is(err, ErrNotCancellable) {
		t.Fatalf("SetTimeout on a finished request: %v", err)
	}
}

// Zero removes the timeout; the hard limit still holds.
func TestSetTimeoutZeroKeepsMax(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"},
		CallOptions{Timeout: time.Minute, ResetTimeoutOnProgress: true, MaxTimeout: 10 * time.Minute})
	h.readFrame()
	h.s.Request(c.Ref()).SetTimeout(0)
	h.clock.Advance(9 * time.Minute)
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending || info.MaxTimeout != 10*time.Minute {
		t.Fatalf("after 9m with no timeout: %v, max %v", info.State, info.MaxTimeout)
	}
	h.clock.Advance(time.Minute)
	if _, st, err := waitResult(t, c); st != TimedOut || err == nil {
		t.Fatalf("got %v %v, want timed out at the maximum", st, err)
	}
}

// A negative MaxTimeout means none, even when progress resets the timeout.
func TestNegativeMaxTimeoutIsNone(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"},
		CallOptions{Timeout: time.Minute, ResetTimeoutOnProgress: true, MaxTimeout: -1})
	h.readFrame()
	for i := range 20 {
		h.clock.Advance(50 * time.Second)
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		waitUntil(t, "the progress applied", func() bool {
			info, _ := h.s.Request(c.Ref()).Info()
			return info.ProgressCount == i+1
		})
	}
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending {
		t.Fatalf("after 1000s of progress: %v", info.State)
	}
}

// RequestStarted carries the timeouts the request was armed with, so that
// a screen built from events shows them from the start.
func TestRequestStartedShowsItsTimeouts(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"},
		CallOptions{Timeout: time.Minute, ResetTimeoutOnProgress: true})
	h.readFrame()
	e := h.events.waitFor(t, "the request's start", func(e Event) bool {
		s, ok := e.(RequestStarted)
		return ok && s.Info.Seq == c.Seq()
	}).(RequestStarted)
	if e.Info.Timeout != time.Minute || e.Info.MaxTimeout != 10*time.Minute {
		t.Errorf("RequestStarted says timeout %v, max %v; want 1m0s, 10m0s", e.Info.Timeout, e.Info.MaxTimeout)
	}
}

// MaxTimeout bounds the whole request even when progress does not reset
// the timeout: a long timeout does not outlast the maximum, and a request
// with no timeout at all still ends at it.
func TestMaxTimeoutHoldsWithoutReset(t *testing.T) {
	for _, timeout := range []time.Duration{0, time.Hour} {
		h := newHarness(t, harnessOpts{})
		c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"},
			CallOptions{Timeout: timeout, MaxTimeout: 5 * time.Minute})
		h.readFrame()
		if info, _ := h.s.Request(c.Ref()).Info(); info.MaxTimeout != 5*time.Minute {
			t.Errorf("timeout %v: the request says its maximum is %v, want 5m0s", timeout, info.MaxTimeout)
		}
		h.clock.Advance(5*time.Minute - time.Second)
		if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending {
			t.Fatalf("timeout %v: %v before the maximum", timeout, info.State)
		}
		h.clock.Advance(time.Second)
		if _, st, err := waitResult(t, c); st != TimedOut || err == nil || !contains(err.Error(), "timeout after 5m0s (maximum)") {
			t.Fatalf("timeout %v: got %v %v at 5m, want timed out at the maximum", timeout, st, err)
		}
	}
}

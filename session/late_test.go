package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// Progress that arrives in the settle window after a cancel is late
// traffic, never progress of a request in flight.
func TestProgressInSettleWindowIsLate(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"}, CallOptions{})
	h.readFrame()
	h.s.Request(c.Ref()).Cancel("user")
	h.readFrame()
	h.clock.Advance(200 * time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":3}}`)
	ev := h.events.waitFor(t, "late progress", isLate(c.Seq(), LateProgress)).(LateArrived)
	if ev.Late.AfterCancel != 200*time.Millisecond {
		t.Errorf("AfterCancel = %v, want 200ms", ev.Late.AfterCancel)
	}
	info, _ := h.s.Request(c.Ref()).Info()
	if info.State != Cancelling || info.ProgressCount != 0 || info.LateCount != 1 {
		t.Errorf("after progress in the settle window: %v, %d progress, %d late; want cancelling, 0, 1",
			info.State, info.ProgressCount, info.LateCount)
	}
	for _, e := range h.events.snapshot() {
		if p, ok := e.(ProgressUpdated); ok && p.Ref.Seq == c.Seq() {
			t.Errorf("progress in the settle window was delivered as progress: %+v", p)
		}
	}
	h.clock.Advance(time.Second)
	if _, st, _ := waitResult(t, c); st != Cancelled {
		t.Fatalf("state %v", st)
	}
}

// Late is timed from the moment the cancel reached the transport, on the
// session's clock; what arrives between the decision and the write is
// late too, with AfterCancel 0, and never the result.
func TestLateIsTimedFromTheCancelWrite(t *testing.T) {
	h := newHarness(t, harnessOpts{holdSend: 2}) // the request goes, its cancel is held
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"}, CallOptions{})
	h.readFrame()
	cancelled := make(chan error, 1)
	go func() { cancelled <- h.s.Request(c.Ref()).Cancel("user") }()
	waitClosed(t, h.hold.held, "the cancel reaching the transport")
	if info, _ := h.s.Request(c.Ref()).Info(); !info.LateFrom().Equal(info.CancelAt) {
		t.Errorf("before the write LateFrom = %v, want CancelAt %v", info.LateFrom(), info.CancelAt)
	}
	h.clock.Advance(300 * time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{"raced":true}}`)
	early := h.events.waitFor(t, "late response before the cancel write", isLate(c.Seq(), LateResponse)).(LateArrived)
	if early.Late.AfterCancel != 0 {
		t.Errorf("traffic before the cancel was written: AfterCancel %v, want 0", early.Late.AfterCancel)
	}
	h.hold.let()
	select {
	case err := <-cancelled:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Cancel did not return after its write was released")
	}
	if m := h.readFrame(); m.Method != "notifications/cancelled" {
		t.Fatalf("got %s", m.Method)
	}
	info, _ := h.s.Request(c.Ref()).Info()
	if d := info.CancelSentAt.Sub(info.CancelAt); d != 300*time.Millisecond {
		t.Fatalf("CancelSentAt − CancelAt = %v, want 300ms", d)
	}
	if !info.LateFrom().Equal(info.CancelSentAt) {
		t.Errorf("LateFrom = %v, want CancelSentAt %v", info.LateFrom(), info.CancelSentAt)
	}
	h.clock.Advance(100 * time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":9}}`)
	late := h.events.waitFor(t, "late progress after the write", isLate(c.Seq(), LateProgress)).(LateArrived)
	if late.Late.AfterCancel != 100*time.Millisecond {
		t.Errorf("AfterCancel = %v, want 100ms from the write (400ms would be from the decision)", late.Late.AfterCancel)
	}
	h.clock.Advance(time.Second)
	if res, st, err := waitResult(t, c); st != Cancelled || res != nil || !errors.Is(err, ErrCancelled) {
		t.Fatalf("Result = %s %v %v; traffic after the decision must never be the result", res, st, err)
	}
}

// An error response ends the request failed, with the peer's error.
func TestErrorResponseMarksFailed(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: x"}}`)
	res, st, err := waitResult(t, c)
	var rpcErr *RPCError
	if st != Failed || res != nil || !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || rpcErr.Message != "Unknown tool: x" {
		t.Fatalf("Result = %s %v %v; want failed with the peer's error", res, st, err)
	}
	h.events.waitFor(t, "failed", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Seq == c.Seq() && sc.From == Pending && sc.To == Failed && sc.Reason == "Unknown tool: x (code -32602)"
	})
	if info, _ := h.s.Request(c.Ref()).Info(); info.Error == nil || info.Error.Code != -32602 || info.Result != nil {
		t.Errorf("info: Error %+v Result %s", info.Error, info.Result)
	}
}

// Late traffic past the cap on kept frames is still counted exactly, by
// kind.
func TestLateCountsPastTheCap(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"}, CallOptions{})
	h.readFrame()
	h.s.Request(c.Ref()).Cancel("user")
	h.readFrame()
	for range maxLateFrames + 500 {
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":3}}`)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	h.events.waitFor(t, "the late response", isLate(c.Seq(), LateResponse))
	info, _ := h.s.Request(c.Ref()).Info()
	if len(info.Late) != maxLateFrames || info.LateCount != maxLateFrames+501 ||
		info.LateKinds != [4]int{LateResponse: 1, LateProgress: maxLateFrames + 500} {
		t.Fatalf("kept %d, count %d, by kind %v", len(info.Late), info.LateCount, info.LateKinds)
	}
}

// Late traffic is counted without bound but kept only up to maxLateFrames
// frames, the first ones.
func TestLateFramesAreBounded(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.s.Request(c.Ref()).Cancel("user")
	h.readFrame()
	const n = maxLateFrames + 1
	for i := 1; i <= n; i++ {
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}`, i)
	}
	h.events.waitFor(t, "the last late progress", func(e Event) bool {
		l, ok := e.(LateArrived)
		return ok && contains(string(l.Late.Data), fmt.Sprintf(`"progress":%d}`, n))
	})
	info, _ := h.s.Request(c.Ref()).Info()
	if info.LateCount != n || len(info.Late) != maxLateFrames {
		t.Fatalf("after %d late frames: count %d, kept %d; want %d, %d", n, info.LateCount, len(info.Late), n, maxLateFrames)
	}
}

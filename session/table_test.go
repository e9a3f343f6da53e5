package session

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
)

// The legal moves are exactly the documented ones, for each direction.
func TestLegalMoves(t *testing.T) {
	states := []State{Pending, Completed, Failed, TimedOut, Cancelling, Cancelled}
	legal := map[bool][]string{
		false: {"pending→completed", "pending→failed", "pending→timed_out", "pending→cancelling", "cancelling→cancelled"},
		true:  {"pending→completed", "pending→failed", "pending→cancelled"},
	}
	for _, incoming := range []bool{false, true} {
		var got []string
		for _, from := range states {
			for _, to := range states {
				if legalMove(incoming, from, to) {
					got = append(got, from.String()+"→"+to.String())
				}
			}
		}
		if !slices.Equal(got, legal[incoming]) {
			t.Errorf("incoming=%v: legal moves %v, want %v", incoming, got, legal[incoming])
		}
	}
}

// completedRequest returns a harness whose request id 1 completed.
func completedRequest(t *testing.T, o harnessOpts) (*harness, *Call) {
	t.Helper()
	h := newHarness(t, o)
	c, err := h.s.Call(context.Background(), "x", nil, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if _, st, _ := waitResult(t, c); st != Completed {
		t.Fatalf("request ended %v, want completed", st)
	}
	return h, c
}

// A second final state is a bug: a test binary panics, naming the move
// and the request.
func TestIllegalMovePanicsInTests(t *testing.T) {
	h, c := completedRequest(t, harnessOpts{})
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		h.s.mu.Lock()
		defer h.s.mu.Unlock()
		h.s.setState(h.s.table.find(c.Ref()), Cancelled, "again")
		return "no panic"
	}()
	for _, want := range []string{"completed → cancelled", "outgoing request 1 x", "seq 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("panic %q lacks %q", msg, want)
		}
	}
}

// In mcpoke itself an illegal move is logged at Error and ignored: the
// request keeps its state and its result, and nothing panics (a second
// final state once closed Call.done twice).
func TestIllegalMoveInProductionIsLoggedAndIgnored(t *testing.T) {
	panicOnIllegalMove = false
	t.Cleanup(func() { panicOnIllegalMove = true })
	logs := &buffertest.Buffer{}
	h, c := completedRequest(t, harnessOpts{})
	h.s.log = slog.New(slog.NewTextHandler(logs, nil))
	h.s.mu.Lock()
	h.s.setState(h.s.table.find(c.Ref()), Cancelled, "again")
	h.s.mu.Unlock()
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Completed {
		t.Errorf("state after an illegal move = %v, want completed", info.State)
	}
	if res, st, err := c.Result(); st != Completed || err != nil || string(res) != `{}` {
		t.Errorf("result after an illegal move = %s %v %v", res, st, err)
	}
	for _, want := range []string{"level=ERROR", "from=completed", "to=cancelled", "id=1"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// A request that finishes, however it finishes, leaves no timer armed.
func TestFinishedRequestLeavesNoTimerArmed(t *testing.T) {
	opts := CallOptions{Timeout: time.Minute, ResetTimeoutOnProgress: true}
	for _, answer := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no"}}`,
	} {
		h := newHarness(t, harnessOpts{})
		c, _ := h.s.Call(context.Background(), "x", nil, opts)
		h.readFrame()
		if n := h.clock.Armed(); n != 1 {
			t.Fatalf("%d timers armed for a call with a resetting timeout, want 1 (its timeout and maximum share the session's timer)", n)
		}
		h.peerSend("%s", answer)
		waitResult(t, c)
		if n := h.clock.Armed(); n != 0 {
			t.Errorf("after %s: %d timers still armed", answer, n)
		}
	}

	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, opts)
	h.readFrame()
	h.s.Request(c.Ref()).Cancel("user")
	h.readFrame()
	if n := h.clock.Armed(); n != 1 {
		t.Fatalf("cancelling: %d timers armed, want only the settle window", n)
	}
	h.clock.Advance(time.Second)
	if _, st, _ := waitResult(t, c); st != Cancelled {
		t.Fatalf("state %v", st)
	}
	if n := h.clock.Armed(); n != 0 {
		t.Errorf("cancelled: %d timers still armed", n)
	}

	// Timed out: the timeout timer fired, so the maximum must be stopped.
	h = newHarness(t, harnessOpts{})
	c, _ = h.s.Call(context.Background(), "x", nil, opts)
	h.readFrame()
	h.clock.Advance(opts.Timeout)
	if _, st, _ := waitResult(t, c); st != TimedOut {
		t.Fatalf("state %v after the timeout, want timed_out", st)
	}
	if m := h.readFrame(); m.Method != "notifications/cancelled" {
		t.Fatalf("after the timeout the client wrote %q, want its cancel", m.Method)
	}
	if n := h.clock.Armed(); n != 0 {
		t.Errorf("timed out: %d timers still armed (the maximum was not stopped)", n)
	}
}

// Trimming keeps exactly MaxFinished finished requests, the newest, and
// every request still in flight.
func TestTrimKeepsExactlyTheNewestFinished(t *testing.T) {
	h := newHarness(t, harnessOpts{maxFinished: 4})
	pending, _ := h.s.Call(context.Background(), "slow", nil, CallOptions{})
	h.readFrame()
	var done []*Call
	for range 6 { // the 6th finished is past 4 + 4/4: the table trims
		c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
		h.readFrame()
		h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{}}`, c.ID())
		waitResult(t, c)
		done = append(done, c)
	}
	var seqs []uint64
	for _, info := range h.s.snapshot() {
		seqs = append(seqs, info.Seq)
	}
	want := []uint64{pending.Seq()}
	for _, c := range done[2:] {
		want = append(want, c.Seq())
	}
	if !slices.Equal(seqs, want) {
		t.Fatalf("table keeps seqs %v, want %v (the pending one and the 4 newest finished)", seqs, want)
	}
	if _, ok := h.s.Request(done[0].Ref()).Info(); ok {
		t.Error("a trimmed request is still found")
	}
	// A trimmed id is no longer ours: its response is stray.
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{}}`, done[0].ID())
	h.events.waitFor(t, "stray response for the trimmed id", func(e Event) bool {
		s, ok := e.(StrayArrived)
		return ok && s.ID == done[0].ID()
	})
}

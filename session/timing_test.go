package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
)

// The spec's three timing scenarios for cancellation, made deterministic.

func TestCancelBeforeResponse(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, err := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep"}, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req := h.readFrame()
	if string(req.ID) != "1" || req.Method != "tools/call" {
		t.Fatalf("request = %+v", req)
	}
	if err := h.s.Request(c.Ref()).Cancel("user pressed c"); err != nil {
		t.Fatal(err)
	}
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Cancelling {
		t.Fatalf("state after Cancel = %v, want cancelling", info.State)
	}
	cancel := h.readFrame()
	if cancel.Method != "notifications/cancelled" || cancel.ID != nil {
		t.Fatalf("cancel frame = %+v", cancel)
	}
	if got := string(cancel.Params); got != `{"requestId":1,"reason":"user pressed c"}` {
		t.Fatalf("cancel params = %s (the id must stay a number)", got)
	}
	// The UI shows when the cancel went out: CancelSent says so.
	sent := h.events.waitFor(t, "cancel sent", func(e Event) bool {
		cs, ok := e.(CancelSent)
		return ok && cs.Ref.Seq == c.Seq()
	}).(CancelSent)
	if !sent.At.Equal(clocktest.Epoch) || sent.Err != nil {
		t.Errorf("CancelSent at %v, err %v; want at the clock's start, no error", sent.At, sent.Err)
	}

	h.clock.Advance(300 * time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done anyway"}]}}`)
	ev := h.events.waitFor(t, "late response", isLate(c.Seq(), LateResponse)).(LateArrived)
	if ev.Late.AfterCancel != 300*time.Millisecond {
		t.Errorf("late AfterCancel = %v, want 300ms", ev.Late.AfterCancel)
	}
	select {
	case <-c.Done():
		t.Fatal("call finished before the settle window passed")
	default:
	}
	h.clock.Advance(time.Second)
	res, st, err := waitResult(t, c)
	if st != Cancelled || res != nil || !errors.Is(err, ErrCancelled) {
		t.Fatalf("Result = %s, %v, %v; want nil, cancelled, ErrCancelled", res, st, err)
	}
	info, _ := h.s.Request(c.Ref()).Info()
	if info.LateCount != 1 || info.Result != nil || info.CancelReason != "user pressed c" {
		t.Fatalf("info = %+v", info)
	}
}

func TestCancelAndResponseCross(t *testing.T) {
	h := newHarness(t, harnessOpts{gated: true})
	c, err := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.readFrame()
	// The peer answers; the answer is on its way (held at the gate) when
	// the user cancels: they cross on the wire.
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`)
	if err := h.s.Request(c.Ref()).Cancel("crossing"); err != nil {
		t.Fatalf("Cancel while the response is in flight: %v", err)
	}
	if m := h.readFrame(); m.Method != "notifications/cancelled" {
		t.Fatalf("want the cancel on the wire, got %+v", m)
	}
	h.clock.Advance(50 * time.Millisecond)
	h.gate.release(1)
	ev := h.events.waitFor(t, "late response", isLate(c.Seq(), LateResponse)).(LateArrived)
	if ev.Late.AfterCancel != 50*time.Millisecond {
		t.Errorf("AfterCancel = %v", ev.Late.AfterCancel)
	}
	h.clock.Advance(time.Second)
	if _, st, err := waitResult(t, c); st != Cancelled || !errors.Is(err, ErrCancelled) {
		t.Fatalf("got %v %v; a response after Cancel returned must never be the result", st, err)
	}
}

func TestResponseBeforeCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`)
	h.events.waitFor(t, "completed", isState(c.Seq(), Completed))
	before := h.wire.written()
	err := h.s.Request(c.Ref()).Cancel("too late")
	if !errors.Is(err, ErrNotCancellable) {
		t.Fatalf("Cancel after completion = %v, want ErrNotCancellable", err)
	}
	if after := h.wire.written(); after != before {
		t.Fatalf("Cancel of a finished request wrote %d frames", after-before)
	}
	res, st, err := waitResult(t, c)
	if st != Completed || err != nil || string(res) != `{"ok":true}` {
		t.Fatalf("Result = %s %v %v", res, st, err)
	}
}

func TestCancelRefusals(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	peer, _, err := h.initialize(InitializeOptions{ClientInfo: Implementation{Name: "mcpoke", Version: "test"}},
		`{"protocolVersion":"2025-06-18","serverInfo":{"name":"fake","version":"1"},"capabilities":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	if peer.ServerInfo.Name != "fake" || peer.ProtocolVersion != "2025-06-18" {
		t.Fatalf("peer = %+v", peer)
	}
	if m := h.readFrame(); m.Method != "notifications/initialized" {
		t.Fatalf("after initialize: %q", m.Method)
	}
	before := h.wire.written()
	if err := h.s.Request(Ref{Seq: 1, ID: IntID(1)}).Cancel("no"); !errors.Is(err, ErrInitializeNotCancellable) {
		t.Errorf("cancel initialize: %v", err)
	}
	if err := h.s.Request(Ref{Seq: 99, ID: IntID(99)}).Cancel("no"); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf("cancel unknown: %v", err)
	}
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	before++
	if c.ID() != IntID(2) {
		t.Fatalf("second request has id %s, the test needs 2", c.ID())
	}
	if err := h.s.Request(Ref{Seq: c.Seq(), ID: StringID("2")}).Cancel("no"); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf(`cancel "2" must not match id 2: %v`, err)
	}
	if err := h.s.Request(c.Ref()).Cancel("once"); err != nil {
		t.Fatal(err)
	}
	h.readFrame()
	before++
	if err := h.s.Request(c.Ref()).Cancel("twice"); !errors.Is(err, ErrNotCancellable) {
		t.Errorf("second cancel: %v", err)
	}
	if got := h.wire.written(); got != before {
		t.Errorf("refused cancels wrote %d frames", got-before)
	}
}

func TestUnsupportedProtocolVersion(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, _, err := h.initialize(InitializeOptions{}, `{"protocolVersion":"1999-01-01","serverInfo":{"name":"old","version":"1"},"capabilities":{}}`)
	var uv *UnsupportedVersionError
	if !errors.As(err, &uv) || uv.Version != "1999-01-01" {
		t.Fatalf("err = %v", err)
	}
}

func TestTimeoutThenLateTraffic(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "slow", nil, CallOptions{Timeout: 30 * time.Second})
	h.readFrame()
	h.clock.Advance(29 * time.Second)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	h.events.waitFor(t, "progress", func(e Event) bool { _, ok := e.(ProgressUpdated); return ok })
	h.clock.Advance(time.Second)
	_, st, err := waitResult(t, c)
	if st != TimedOut || !errors.Is(err, ErrTimedOut) {
		t.Fatalf("got %v %v", st, err)
	}
	m := h.readFrame()
	if m.Method != "notifications/cancelled" || string(m.Params) != `{"requestId":1,"reason":"timeout after 30s"}` {
		t.Fatalf("timeout cancel = %s %s", m.Method, m.Params)
	}
	h.clock.Advance(2 * time.Second)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}`)
	h.peerSend(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"gave up"}}`)
	lp := h.events.waitFor(t, "late progress", isLate(c.Seq(), LateProgress)).(LateArrived)
	le := h.events.waitFor(t, "late error", isLate(c.Seq(), LateError)).(LateArrived)
	if lp.Late.AfterCancel != 2*time.Second || le.Late.AfterCancel != 2*time.Second {
		t.Errorf("delays %v %v", lp.Late.AfterCancel, le.Late.AfterCancel)
	}
}

func TestTimeoutResetsOnProgressUpToMaximum(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "slow", nil, CallOptions{
		Timeout: 10 * time.Second, ResetTimeoutOnProgress: true, MaxTimeout: 35 * time.Second})
	h.readFrame()
	for i := 1; i <= 3; i++ {
		h.clock.Advance(9 * time.Second)
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}`, i)
		h.events.waitFor(t, "progress", func(e Event) bool {
			p, ok := e.(ProgressUpdated)
			return ok && p.Progress.Progress == float64(i)
		})
		if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending {
			t.Fatalf("after %ds with progress: %v", 9*i, info.State)
		}
	}
	h.clock.Advance(9 * time.Second)
	// 36s have passed: the maximum (35s) fired even though progress kept coming.
	_, st, err := waitResult(t, c)
	if st != TimedOut || err == nil || !contains(err.Error(), "maximum") {
		t.Fatalf("got %v %v", st, err)
	}
}

// Without MaxTimeout a timeout that resets on progress still ends at
// 10 × Timeout, as CallOptions documents.
func TestResettingTimeoutDefaultsToTenTimes(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "slow", nil, CallOptions{Timeout: 10 * time.Second, ResetTimeoutOnProgress: true})
	h.readFrame()
	for i := 1; i <= 11; i++ {
		h.clock.Advance(9 * time.Second)
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}`, i)
		h.events.waitFor(t, "progress", func(e Event) bool {
			p, ok := e.(ProgressUpdated)
			return ok && p.Progress.Progress == float64(i)
		})
	}
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending {
		t.Fatalf("after 99s with progress every 9s: %v, want pending", info.State)
	}
	h.clock.Advance(time.Second)
	_, st, err := waitResult(t, c)
	if st != TimedOut || err == nil || !contains(err.Error(), "timeout after 1m40s (maximum)") {
		t.Fatalf("at 100s: %v %v, want timed out at the 1m40s maximum", st, err)
	}
}

// A request without a timeout arms no timer and never times out.
func TestNoTimeoutMeansNone(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	if n := h.clock.Armed(); n != 0 {
		t.Fatalf("%d timers armed for a request without a timeout", n)
	}
	h.clock.Advance(24 * time.Hour)
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending {
		t.Fatalf("a day later: %v, want pending", info.State)
	}
}

// The settle window is a second unless configured: a cancelled request
// stays cancelling for exactly that long.
func TestSettleWindowDefaultsToOneSecond(t *testing.T) {
	h := newHarness(t, harnessOpts{}) // Config.SettleWindow left 0
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.s.Request(c.Ref()).Cancel("user")
	h.readFrame()
	h.clock.Advance(999 * time.Millisecond)
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Cancelling {
		t.Fatalf("999ms after the cancel: %v, want cancelling", info.State)
	}
	h.clock.Advance(time.Millisecond)
	if _, st, _ := waitResult(t, c); st != Cancelled {
		t.Fatalf("1s after the cancel: %v, want cancelled", st)
	}
}

func TestStrayAndDuplicateResponses(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{"again":true}}`)
	h.peerSend(`{"jsonrpc":"2.0","id":"1","result":{}}`)
	h.peerSend(`{"jsonrpc":"2.0","id":77,"error":{"code":1,"message":"who?"}}`)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nope","progress":1}}`)
	h.events.waitFor(t, "duplicate", func(e Event) bool { d, ok := e.(DuplicateArrived); return ok && d.Ref.Seq == c.Seq() })
	h.events.waitFor(t, "stray string id", func(e Event) bool { s, ok := e.(StrayArrived); return ok && contains(string(s.Data), `"id":"1"`) })
	h.events.waitFor(t, "stray error", func(e Event) bool { s, ok := e.(StrayArrived); return ok && s.Kind == LateError })
	h.events.waitFor(t, "stray progress", func(e Event) bool { s, ok := e.(StrayArrived); return ok && s.Kind == LateProgress })
	if res, _, _ := waitResult(t, c); string(res) != `{}` {
		t.Fatalf("the duplicate replaced the result: %s", res)
	}
	if info, _ := h.s.Request(c.Ref()).Info(); info.Duplicates != 1 {
		t.Errorf("Duplicates = %d, want 1", info.Duplicates)
	}
}

func TestHostilePeerNoise(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.peerSend(`this is not json`)
	h.peerSend(`{"jsonrpc":"2.0"}`)
	h.peerSend(`[]`)
	h.peerSend(`{"id":{},"result":1}`)
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if _, st, _ := waitResult(t, c); st != Completed {
		t.Fatalf("after noise the session must still work; state %v", st)
	}
	// Events come in decision order: once completion is seen, so is the noise.
	h.events.waitFor(t, "completed", isState(c.Seq(), Completed))
	n := 0
	for _, e := range h.events.snapshot() {
		switch e.(type) {
		case NoiseArrived, StrayArrived:
			n++
		}
	}
	if n != 4 {
		t.Fatalf("want 4 noise/stray events, got %d", n)
	}
}

func TestPeerExitFailsPendingRequests(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c1, _ := h.s.Call(context.Background(), "a", nil, CallOptions{})
	c2, _ := h.s.Call(context.Background(), "b", nil, CallOptions{})
	h.readFrame()
	h.readFrame()
	h.s.Request(c2.Ref()).Cancel("bye")
	h.readFrame()
	h.peer.Close()
	if _, st, err := waitResult(t, c1); st != Failed || err == nil {
		t.Fatalf("pending request after peer closed: %v %v", st, err)
	}
	if _, st, _ := waitResult(t, c2); st != Cancelled {
		t.Fatalf("cancelling request after peer closed: %v", st)
	}
	h.events.waitFor(t, "closed by the peer", func(e Event) bool { c, ok := e.(Closed); return ok && c.ByPeer })
	if _, err := h.s.Call(context.Background(), "c", nil, CallOptions{}); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("Call after close: %v", err)
	}
}

func TestContextCancelSendsCancellation(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := h.s.Call(ctx, "x", nil, CallOptions{})
	h.readFrame()
	cancel()
	m := h.readFrame()
	if m.Method != "notifications/cancelled" || !contains(string(m.Params), "context canceled") {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	// The cancel runs on context.AfterFunc's goroutine: wait until it has
	// armed the settle window before moving the clock past it.
	waitUntil(t, "the context's cancel being written", func() bool {
		info, _ := h.s.Request(c.Ref()).Info()
		return !info.CancelSentAt.IsZero()
	})
	h.clock.Advance(time.Second)
	if _, st, _ := waitResult(t, c); st != Cancelled {
		t.Fatalf("state %v", st)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestInitializeGivesUpWhenContextEnds(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := h.s.Initialize(ctx, InitializeOptions{})
		errc <- err
	}()
	h.readFrame() // initialize; the peer never answers
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Initialize = %v, want context.Canceled", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Initialize did not return when its context ended")
	}
	if got := h.wire.written(); got != 1 {
		t.Fatalf("%d frames written; initialize must never be cancelled on the wire", got)
	}
}

package session

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// cancelledIDs reads frames until the sync notification and returns the
// requestIds of the cancels among them, in wire order.
func (h *harness) cancelledIDs() []string {
	h.t.Helper()
	if err := h.s.Notify("sync", nil); err != nil {
		h.t.Fatal(err)
	}
	var ids []string
	for {
		m := h.readFrame()
		switch m.Method {
		case "sync":
			return ids
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			ids = append(ids, string(p.RequestID))
		}
	}
}

func (h *harness) calls(n int, method string) []*Call {
	h.t.Helper()
	var cs []*Call
	for range n {
		c, err := h.s.Call(context.Background(), method, nil, CallOptions{})
		if err != nil {
			h.t.Fatal(err)
		}
		h.readFrame()
		cs = append(cs, c)
	}
	return cs
}

func wantStates(t *testing.T, h *harness, cs []*Call, want State) {
	t.Helper()
	for _, c := range cs {
		if info, _ := h.s.Request(c.Ref()).Info(); info.State != want {
			t.Errorf("request %s is %v, want %v", c.ID(), info.State, want)
		}
	}
}

// With no handshake in the table, cancel-all cancels every request, the
// oldest and the newest included, once each, in order.
func TestCancelAllWithoutHandshake(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	cs := h.calls(3, "tools/call")
	if n := h.s.CancelAll("quit"); n != 3 {
		t.Fatalf("CancelAll = %d, want 3", n)
	}
	if got := h.cancelledIDs(); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Fatalf("cancels on the wire for %v, want [1 2 3]", got)
	}
	wantStates(t, h, cs, Cancelling)
	if n := h.s.CancelAll("again"); n != 0 {
		t.Errorf("second CancelAll = %d, want 0", n)
	}
	if got := h.cancelledIDs(); len(got) != 0 {
		t.Errorf("second CancelAll wrote cancels for %v", got)
	}
}

// After the handshake was trimmed from the table, cancel-all still
// cancels the oldest request and the newest.
func TestCancelAllAfterHandshakeTrimmed(t *testing.T) {
	h := newHarness(t, harnessOpts{maxFinished: 2})
	if _, _, err := h.initialize(InitializeOptions{}, `{"protocolVersion":"2025-11-25","serverInfo":{"name":"p","version":"1"},"capabilities":{}}`); err != nil {
		t.Fatal(err)
	}
	h.readFrame() // notifications/initialized
	for _, c := range h.calls(3, "x") {
		h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{}}`, c.ID())
		waitResult(t, c)
	}
	if snap := h.s.snapshot(); snap[0].Method == "initialize" {
		t.Fatalf("the handshake was not trimmed: %+v", snap[0])
	}
	cs := h.calls(3, "tools/call")
	if n := h.s.CancelAll("quit"); n != 3 {
		t.Fatalf("CancelAll = %d, want 3", n)
	}
	want := []string{cs[0].ID().String(), cs[1].ID().String(), cs[2].ID().String()}
	if got := h.cancelledIDs(); !slices.Equal(got, want) {
		t.Fatalf("cancels on the wire for %v, want %v", got, want)
	}
	wantStates(t, h, cs, Cancelling)
}

// Quitting or cancel-all during a slow handshake never cancels the
// pending initialize (the spec forbids it), nor a request the peer sent.
func TestCancelAllSparesPendingInitialize(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	h := newHarness(t, harnessOpts{})
	h.s.cfg.Handlers = map[string]Handler{"roots/list": func(ctx context.Context, _ *Incoming) (any, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil, ctx.Err()
	}}
	initCall := h.calls(1, "initialize")[0]
	h.peerSend(`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
	h.events.waitFor(t, "the peer's request", func(e Event) bool { s, ok := e.(RequestStarted); return ok && s.Info.Incoming })
	cs := h.calls(2, "tools/call")
	if n := h.s.CancelAll("quit"); n != 2 {
		t.Fatalf("CancelAll = %d, want 2", n)
	}
	if got := h.cancelledIDs(); !slices.Equal(got, []string{"2", "3"}) {
		t.Fatalf("cancels on the wire for %v, want [2 3] (never 1, the initialize)", got)
	}
	wantStates(t, h, []*Call{initCall}, Pending)
	wantStates(t, h, cs, Cancelling)
	for _, info := range h.s.snapshot() {
		if info.Incoming && info.State != Pending {
			t.Errorf("the peer's request is %v after CancelAll", info.State)
		}
	}
}

// Cancel-all cancels what the person sent, never a housekeeping request
// (a health ping), whose row says what it is.
func TestCancelAllSparesHousekeeping(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ping, err := h.s.Call(context.Background(), "ping", nil, CallOptions{Housekeeping: true, NoProgressToken: true})
	if err != nil {
		t.Fatal(err)
	}
	h.readFrame()
	cs := h.calls(1, "tools/call")
	if n := h.s.CancelAll("quit"); n != 1 {
		t.Fatalf("CancelAll = %d, want 1", n)
	}
	if got := h.cancelledIDs(); !slices.Equal(got, []string{cs[0].ID().String()}) {
		t.Fatalf("cancels on the wire for %v, want only the tool call's", got)
	}
	wantStates(t, h, []*Call{ping}, Pending)
	if info, _ := h.s.Request(ping.Ref()).Info(); !info.Housekeeping {
		t.Error("the health ping's row does not say it is housekeeping")
	}
}

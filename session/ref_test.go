package session

import (
	"context"
	"errors"
	"testing"
)

// An incoming request and one of ours may share an id; Refs keep them
// apart, and only ours can be cancelled.
func TestRefsSeparateIncomingFromOutgoing(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	h := newHarness(t, harnessOpts{})
	h.s.cfg.Handlers = map[string]Handler{"sampling/createMessage": func(ctx context.Context, _ *Incoming) (any, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil, ctx.Err()
	}}
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`)
	in := h.events.waitFor(t, "incoming", func(e Event) bool {
		s, ok := e.(RequestStarted)
		return ok && s.Info.Incoming
	}).(RequestStarted).Info

	if in.ID != c.ID() {
		t.Fatalf("test needs equal ids, got %s and %s", in.ID, c.ID())
	}
	if err := h.s.Request(in.Ref()).CanCancel(); !errors.Is(err, ErrIncomingRequest) {
		t.Fatalf("CanCancel(incoming) = %v", err)
	}
	if err := h.s.Request(in.Ref()).Cancel("no"); !errors.Is(err, ErrIncomingRequest) {
		t.Fatalf("Cancel(incoming) = %v", err)
	}
	if got, ok := h.s.Request(in.Ref()).Info(); !ok || !got.Incoming || got.Method != "sampling/createMessage" {
		t.Fatalf("Info(incoming) = %+v %v", got, ok)
	}
	if _, ok := h.s.Request(Ref{Seq: 999, ID: IntID(999)}).Info(); ok {
		t.Fatal("Info of an unknown seq")
	}
	// Same seq and id, other direction: not the same request.
	if _, ok := h.s.Request(Ref{Seq: in.Seq, ID: in.ID}).Info(); ok {
		t.Fatal("Info found the peer's request under an outgoing Ref")
	}
	ours, _ := h.s.Request(c.Ref()).Info()
	if err := h.s.Request(Ref{Seq: ours.Seq + 99, ID: ours.ID}).Cancel("x"); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("Cancel with a wrong seq = %v", err)
	}
	if err := h.s.Request(c.Ref()).CanCancel(); err != nil {
		t.Fatalf("CanCancel(ours) = %v", err)
	}
	if err := h.s.Request(ours.Ref()).Cancel("user"); err != nil {
		t.Fatalf("Cancel(ours) = %v", err)
	}
	if m := h.readFrame(); m.Method != "notifications/cancelled" {
		t.Fatalf("got %s", m.Method)
	}
}

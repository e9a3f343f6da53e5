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
	if err := h.s.CanCancelRef(in.Ref()); !errors.Is(err, ErrIncomingRequest) {
		t.Fatalf("CanCancelRef(incoming) = %v", err)
	}
	if err := h.s.CancelRef(in.Ref(), "no"); !errors.Is(err, ErrIncomingRequest) {
		t.Fatalf("CancelRef(incoming) = %v", err)
	}
	if got, ok := h.s.Info(in.Seq); !ok || !got.Incoming || got.Method != "sampling/createMessage" {
		t.Fatalf("Info(incoming) = %+v %v", got, ok)
	}
	if _, ok := h.s.Info(999); ok {
		t.Fatal("Info of an unknown seq")
	}
	ours, _ := h.s.Info(c.Seq())
	if err := h.s.CancelRef(Ref{Seq: ours.Seq + 99, ID: ours.ID}, "x"); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("CancelRef with a wrong seq = %v", err)
	}
	if err := h.s.CancelRef(ours.Ref(), "user"); err != nil {
		t.Fatalf("CancelRef(ours) = %v", err)
	}
	if m := h.readFrame(); m.Method != "notifications/cancelled" {
		t.Fatalf("got %s", m.Method)
	}
}

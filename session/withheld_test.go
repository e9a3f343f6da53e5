package session

import (
	"context"
	"testing"
	"time"
)

// A person answers the peer's request after the peer cancelled it: the
// answer is withheld, never written, and AnswerWithheld says so with the
// peer's reason. The handler ignores its context on purpose, as a slow
// person would: the answer comes only when the test gives it.
func TestAnswerAfterPeerCancelIsWithheld(t *testing.T) {
	person := make(chan string)
	h := newServerHarness(t, map[string]Handler{
		"elicitation/create": func(ctx context.Context, _ *Incoming) (any, error) {
			return map[string]string{"action": <-person}, nil
		},
	})
	h.peerSend(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"name?"}}`)
	h.events.waitFor(t, "the request's row", func(e Event) bool {
		rs, ok := e.(RequestStarted)
		return ok && rs.Info.Incoming && rs.Info.Method == "elicitation/create"
	})
	h.clock.Advance(2 * time.Second)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e1","reason":"timed out after 2s"}}`)
	h.events.waitFor(t, "the server's cancel", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Incoming && sc.To == Cancelled && sc.Reason == "timed out after 2s"
	})
	person <- "accept"
	w := h.events.waitFor(t, "the answer withheld", func(e Event) bool {
		_, ok := e.(AnswerWithheld)
		return ok
	}).(AnswerWithheld)
	if !w.Answered || w.Why != "timed out after 2s" || w.Ref.ID != StringID("e1") || !w.Ref.Incoming {
		t.Fatalf("withheld %+v", w)
	}
	// A ping the peer sends after is the first thing answered.
	h.peerSend(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := h.readFrame(); string(m.ID) != `"p"` {
		t.Fatalf("first frame after the cancel: %+v", m)
	}
	closeWithin(t, h.s)
	if n := h.wire.written(); n != 1 {
		t.Fatalf("%d frames written, want only the ping's answer", n)
	}
}

// A handler that stops with its context had no answer: withheld, but not
// Answered.
func TestHandlerStoppedByCancelWithheldUnanswered(t *testing.T) {
	h := newServerHarness(t, map[string]Handler{
		"sampling/createMessage": func(ctx context.Context, _ *Incoming) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	h.peerSend(`{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{}}`)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	w := h.events.waitFor(t, "withheld", func(e Event) bool { _, ok := e.(AnswerWithheld); return ok }).(AnswerWithheld)
	if w.Answered {
		t.Fatalf("withheld %+v", w)
	}
}

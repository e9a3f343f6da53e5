package session

import (
	"context"
	"encoding/json"
	"testing"
)

// A multi round-trip retry is a request of its own (new id) whose row
// names its round and the original request, from its first event on.
func TestRetryRoundIsLinkedToTheOriginal(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	first, err := h.s.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"t"}`), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.readFrame()
	retry, err := h.s.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"t","requestState":"s"}`),
		CallOptions{Round: Round{N: 2, First: first.Ref()}})
	if err != nil {
		t.Fatal(err)
	}
	h.readFrame()
	if retry.ID().String() == first.ID().String() {
		t.Fatalf("retry reused id %s", first.ID())
	}
	e := h.events.waitFor(t, "the retry's RequestStarted", func(e Event) bool {
		s, ok := e.(RequestStarted)
		return ok && s.Info.Seq == retry.Seq()
	}).(RequestStarted)
	if !e.Info.Round.Retry() || e.Info.Round.N != 2 || e.Info.Round.First != first.Ref() {
		t.Errorf("RequestStarted.Info.Round = %+v, want round 2 of %v", e.Info.Round, first.Ref())
	}
	if info, _ := h.s.Request(first.Ref()).Info(); info.Round.Retry() {
		t.Errorf("the original is marked a retry: %+v", info.Round)
	}
}

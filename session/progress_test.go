package session

import (
	"context"
	"encoding/json"
	"testing"
)

// Progress is matched by the token's exact JSON value and type: token "1"
// while request 1 is pending is stray, not request 1's progress.
func TestProgressTokenMatchedByExactJSON(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"1","progress":5}}`)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":7}}`)
	stray := h.events.waitFor(t, "stray progress for token \"1\"", func(e Event) bool {
		s, ok := e.(StrayArrived)
		return ok && s.Kind == LateProgress
	}).(StrayArrived)
	if stray.Token != `"1"` || stray.ID != StringID("1") {
		t.Errorf("stray progress: Token %s, ID %s; want \"1\" and the string id \"1\"", stray.Token, stray.ID)
	}
	h.events.waitFor(t, "request 1's progress", func(e Event) bool {
		p, ok := e.(ProgressUpdated)
		return ok && p.Ref.Seq == c.Seq()
	})
	info, _ := h.s.Request(c.Ref()).Info()
	if info.ProgressCount != 1 || info.Progress == nil || info.Progress.Progress != 7 {
		t.Fatalf("request 1 has %d progress, latest %+v; want only progress 7", info.ProgressCount, info.Progress)
	}
}

// The progress token is the id of the request it was sent with, also
// when the peer's own requests made sequence numbers and ids differ.
func TestProgressTokenIsTheRequestIDAfterPeerRequests(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.peerSend(`{"jsonrpc":"2.0","id":"a","method":"ping"}`)
	h.peerSend(`{"jsonrpc":"2.0","id":"b","method":"ping"}`)
	h.readFrame()
	h.readFrame()
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
	if c.Seq() == 1 || c.ID() != IntID(1) {
		t.Fatalf("test needs seq ≠ id; got seq %d id %s", c.Seq(), c.ID())
	}
	m := h.readFrame()
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || string(p.Meta.Token) != "1" {
		t.Fatalf("progressToken sent = %s (params %s), want the id 1", p.Meta.Token, m.Params)
	}
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	h.events.waitFor(t, "progress for the request", func(e Event) bool {
		p, ok := e.(ProgressUpdated)
		return ok && p.Ref.Seq == c.Seq()
	})
}

// Stray traffic carries what names it, typed, so that nobody above the
// session parses frames.
func TestStrayCarriesIDAndToken(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.peerSend(`{"jsonrpc":"2.0","id":"ghost","error":{"code":1,"message":"who?"}}`)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{"odd":true},"progress":1}}`)
	e := h.events.waitFor(t, "stray error", func(e Event) bool { s, ok := e.(StrayArrived); return ok && s.Kind == LateError }).(StrayArrived)
	if e.ID != StringID("ghost") || e.Token != "" {
		t.Errorf("stray error: ID %s Token %q", e.ID, e.Token)
	}
	p := h.events.waitFor(t, "stray progress", func(e Event) bool { s, ok := e.(StrayArrived); return ok && s.Kind == LateProgress }).(StrayArrived)
	if !p.ID.IsZero() || p.Token != `{"odd":true}` {
		t.Errorf("stray progress with an object token: ID %s Token %q; want no ID and the token's text", p.ID, p.Token)
	}
}

// A flooding peer cannot grow a request without bound: the history keeps
// the first maxProgressHistory updates, the count and the latest go on.
func TestProgressHistoryIsBounded(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	const n = maxProgressHistory + 1
	for i := 1; i <= n; i++ {
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}`, i)
	}
	h.events.waitFor(t, "the last progress", func(e Event) bool {
		p, ok := e.(ProgressUpdated)
		return ok && p.Progress.Progress == n
	})
	info, _ := h.s.Request(c.Ref()).Info()
	if info.ProgressCount != n || len(info.ProgressHistory) != maxProgressHistory || info.Progress.Progress != n {
		t.Fatalf("after %d progress: count %d, history %d, latest %v; want %d, %d, %d",
			n, info.ProgressCount, len(info.ProgressHistory), info.Progress.Progress, n, maxProgressHistory, n)
	}
	if last := info.ProgressHistory[maxProgressHistory-1].Progress; last != maxProgressHistory {
		t.Errorf("history ends at progress %v, want %d (the first ones are kept)", last, maxProgressHistory)
	}
}

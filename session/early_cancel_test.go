package session

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// A cancel that comes before its request (over Streamable HTTP each is its
// own POST) cancels the request when it arrives: its handler never runs
// and nothing is answered. Past the window the id is a new request.
func TestCancelBeforeItsRequestCancelsIt(t *testing.T) {
	var ran atomic.Int32
	h := newServerHarness(t, map[string]Handler{
		"tools/call": func(ctx context.Context, in *Incoming) (any, error) {
			ran.Add(1)
			return map[string]string{"ran": in.ID.String()}, nil
		},
	})
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"overtook"}}`)
	h.peerSend(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep"}}`)
	h.events.waitFor(t, "request 4 cancelled on arrival", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Incoming && sc.Ref.ID == IntID(4) && sc.To == Cancelled && sc.Reason == "overtook"
	})
	// The same id a second time is a new request: the cancel was used up.
	h.peerSend(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep"}}`)
	if m := h.readFrame(); string(m.ID) != `4` || string(m.Result) != `{"ran":"4"}` {
		t.Fatalf("request 4 sent again: %+v, want its answer", m)
	}
	// A cancel for an id that comes after the window does not stop it.
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s","reason":"stale"}}`)
	// The reader takes frames in order: once the ping is answered, the
	// cancel was read, at the clock's time before the advance.
	h.peerSend(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := h.readFrame(); string(m.ID) != `"p"` {
		t.Fatalf("ping: %+v", m)
	}
	h.clock.Advance(earlyCancelWindow + time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"sleep"}}`)
	if m := h.readFrame(); string(m.ID) != `"s"` {
		t.Fatalf("request s after the window: %+v, want its answer", m)
	}
	if n := ran.Load(); n != 2 {
		t.Errorf("handler ran %d times, want 2 (not for the request cancelled first)", n)
	}
	closeWithin(t, h.s)
	answers := 0
	for _, f := range h.wire.out {
		if contains(string(f), `"id":4`) {
			answers++
		}
	}
	if answers != 1 {
		t.Errorf("%d answers to id 4, want 1 (the request sent again, not the one cancelled first): %q", answers, h.wire.out)
	}
}

// A flood of cancels for ids never sent keeps at most maxEarlyCancels.
func TestEarlyCancelsBounded(t *testing.T) {
	var e earlyCancels
	now := time.Unix(0, 0)
	for i := range 3 * maxEarlyCancels {
		e.add(fmt.Sprint(i), "", now)
	}
	if len(e.list) != maxEarlyCancels {
		t.Errorf("%d cancels kept, want %d", len(e.list), maxEarlyCancels)
	}
	if _, ok := e.take("0", now); ok {
		t.Error("the oldest cancel was kept past the bound")
	}
	if _, ok := e.take(fmt.Sprint(3*maxEarlyCancels-1), now.Add(earlyCancelWindow+1)); ok {
		t.Error("a cancel was kept past the window")
	}
	if len(e.list) != 0 {
		t.Errorf("%d cancels kept past the window", len(e.list))
	}
}

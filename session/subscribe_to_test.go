package session

import (
	"context"
	"testing"
	"time"
)

// A filtered subscription gets the events it keeps and Closed, nothing
// else, in order; an unfiltered one beside it gets everything.
func TestSubscribeToKeepsItsEvents(t *testing.T) {
	h := newServerHarness(t, map[string]Handler{
		"tools/call": func(ctx context.Context, in *Incoming) (any, error) { return map[string]string{}, nil },
	})
	only := h.s.SubscribeTo(func(e Event) bool { _, ok := e.(StateChanged); return ok })
	h.peerSend(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	h.readFrame()
	h.events.waitFor(t, "request 1 completed (unfiltered)", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.To == Completed
	})
	closeWithin(t, h.s)
	var got []Event
	timeout := time.After(5 * time.Second)
	for done := false; !done; {
		select {
		case e, ok := <-only.C:
			if !ok {
				done = true
				break
			}
			got = append(got, e)
		case <-timeout:
			t.Fatalf("the filtered subscription did not end within 5s after Close: %+v", got)
		}
	}
	if len(got) != 2 {
		t.Fatalf("filtered events %+v, want the state change and Closed", got)
	}
	if sc, ok := got[0].(StateChanged); !ok || sc.To != Completed {
		t.Errorf("first filtered event %+v, want request 1 completed", got[0])
	}
	if _, ok := got[1].(Closed); !ok {
		t.Errorf("last filtered event %+v, want Closed", got[1])
	}
	h.events.waitFor(t, "RequestStarted (unfiltered)", func(e Event) bool { _, ok := e.(RequestStarted); return ok })
}

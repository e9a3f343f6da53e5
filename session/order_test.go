package session

import (
	"context"
	"testing"
	"time"
)

// A cancel is never written before its request, whether it comes from
// Cancel or a timeout while the request's own write is still under way:
// the peer reads the request first.
func TestCancelNeverBeforeItsRequestOnTheWire(t *testing.T) {
	for _, how := range []string{"cancel", "timeout"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t, harnessOpts{holdSend: 1}) // the request's write is held
			called := make(chan *Call, 1)
			go func() {
				c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{Timeout: time.Second})
				called <- c
			}()
			waitClosed(t, h.hold.held, "the request reaching the transport")
			switch how {
			case "cancel":
				if err := h.s.Request(Ref{Seq: 1, ID: IntID(1)}).Cancel("user"); err != nil {
					t.Fatalf("Cancel during the request's write: %v", err)
				}
			case "timeout":
				h.clock.Advance(time.Second)
			}
			h.hold.let()
			first, second := h.readFrame(), h.readFrame()
			if first.Method != "tools/call" || second.Method != "notifications/cancelled" {
				t.Fatalf("wire order: %s then %s; want the request, then its cancel", first.Method, second.Method)
			}
			select {
			case c := <-called:
				h.clock.Advance(time.Second)
				if _, st, _ := waitResult(t, c); st != Cancelled && st != TimedOut {
					t.Fatalf("state %v", st)
				}
			case <-time.After(hangGuard):
				t.Fatal("Call did not return after its write was released")
			}
		})
	}
}

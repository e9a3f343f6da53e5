package session

import (
	"fmt"
	"testing"
)

// A JSON-RPC batch (protocol 2025-03-26) is taken message by message; an
// empty or broken batch is noise.
func TestBatchIsHandledMessageByMessage(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	cs := h.calls(2, "x")
	h.peerSend(`[]`)
	h.peerSend(` [{"jsonrpc":"2.0","id":1,"result":{"n":1}}, {"jsonrpc":"2.0","id":2,"result":{"n":2}}]`)
	for i, c := range cs {
		res, st, err := waitResult(t, c)
		if want := fmt.Sprintf(`{"n":%d}`, i+1); st != Completed || string(res) != want {
			t.Errorf("request %s in a batch: %v %s %v, want completed with %s", c.ID(), st, res, err, want)
		}
	}
	n := h.events.waitFor(t, "the empty batch as noise", func(e Event) bool { _, ok := e.(NoiseArrived); return ok }).(NoiseArrived)
	if string(n.Line) != `[]` || n.Why != "invalid batch" {
		t.Errorf("noise %q (%s), want the empty batch", n.Line, n.Why)
	}
}

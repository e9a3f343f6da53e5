package session

import (
	"testing"
	"unsafe"
)

// The table keeps thousands of rows (Config.MaxFinished, 10,000 by
// default) and the garbage collector scans them all: a row is at most
// half of the 656 bytes it took when it held a whole RequestInfo, and a
// round trip that ends as it should makes no rare part.
func TestRequestRowIsSmall(t *testing.T) {
	if got := unsafe.Sizeof(request{}); got > 656/2 {
		t.Errorf("a request row takes %d bytes; want at most %d", got, 656/2)
	}
	h := newHarness(t, harnessOpts{})
	c, err := h.s.Call(t.Context(), "ping", nil, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	if _, err := c.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	r := h.s.table.find(c.Ref())
	if r == nil {
		t.Fatal("the table does not keep the finished request")
	}
	if r.info.more != nil || r.timers != nil {
		t.Errorf("a completed call without timeouts has a rare part (%v) or timers (%v)", r.info.more != nil, r.timers != nil)
	}
}

package session

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/transport"
)

// initialize that times out ends timed_out, and no cancel is ever sent.
func TestInitializeTimeoutSendsNoCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "initialize", map[string]any{}, CallOptions{Timeout: time.Second})
	h.readFrame()
	h.clock.Advance(2 * time.Second)
	if _, st, _ := waitResult(t, c); st != TimedOut {
		t.Fatalf("state %v", st)
	}
	h.s.Notify("sync", nil)
	if m := h.readFrame(); m.Method != "sync" {
		t.Fatalf("after an initialize timeout the client wrote %s", m.Method)
	}
}

// failingConn blocks every Send until released, then fails it.
type failingConn struct {
	transport.Conn
	entered, release chan struct{}
	once             sync.Once
}

func (f *failingConn) Send([]byte) error {
	f.once.Do(func() { close(f.entered) })
	select {
	case <-f.release:
	case <-time.After(hangGuard): // the test failed before it let go
	}
	return errors.New("broken pipe")
}

// A cancel that comes while the request's own write is failing ends the
// request cancelled; it must not stay cancelling.
func TestCancelDuringFailedWriteEndsCancelled(t *testing.T) {
	a, b := transporttest.Pipe()
	defer b.Close()
	fc := &failingConn{Conn: a, entered: make(chan struct{}), release: make(chan struct{})}
	s := New(fc, Config{Clock: clocktest.New()})
	defer closeWithin(t, s)
	type result struct {
		c   *Call
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := s.Call(context.Background(), "x", nil, CallOptions{})
		done <- result{c, err}
	}()
	waitClosed(t, fc.entered, "the request's write starting")
	if err := s.Request(Ref{Seq: 1, ID: IntID(1)}).Cancel("user"); err != nil {
		t.Fatal(err)
	}
	close(fc.release)
	var r result
	select {
	case r = <-done:
	case <-time.After(hangGuard):
		t.Fatal("Call did not return after its write failed")
	}
	if r.err == nil {
		t.Fatal("Call reported no send error")
	}
	if _, st, _ := waitResult(t, r.c); st != Cancelled {
		t.Fatalf("state %v", st)
	}
}

// Closing a session whose table is trimming must fail every pending
// request (trim once compacted the table under shutdown's loop).
func TestShutdownWhileTrimming(t *testing.T) {
	const maxFinished = 4
	h := newHarness(t, harnessOpts{maxFinished: maxFinished})
	var pending []*Call
	for i := range 20 {
		c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
		h.readFrame()
		if i%2 == 0 {
			h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{}}`, c.ID())
			waitResult(t, c)
			continue
		}
		pending = append(pending, c)
	}
	h.peer.Close()
	for _, c := range pending {
		if _, st, _ := waitResult(t, c); st != Failed {
			t.Fatalf("request %s ended %v, want failed", c.ID(), st)
		}
	}
	// Trim lets the table overshoot by a quarter before compacting.
	if n, limit := len(h.s.snapshot()), maxFinished+maxFinished/4+1; n > limit {
		t.Errorf("table keeps %d requests with MaxFinished %d, want at most %d", n, maxFinished, limit)
	}
}

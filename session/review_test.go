package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/transport"
)

// A task whose tasks/cancel is never answered still ends cancelled.
func TestTaskCancelUnansweredEndsCancelled(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "research"}, CallOptions{})
	h.readFrame()
	h.s.mu.Lock()
	h.s.out[c.ID().raw].info.TaskID = "t1"
	h.s.mu.Unlock()
	if err := h.s.Cancel(c.ID(), "user"); err != nil {
		t.Fatal(err)
	}
	if m := h.readFrame(); m.Method != "tasks/cancel" {
		t.Fatalf("got %s", m.Method)
	}
	if info, _ := h.s.Lookup(c.ID()); info.State != Cancelling {
		t.Fatalf("before tasks/cancel is answered: %v", info.State)
	}
	h.clock.Advance(taskCancelTimeout)
	if _, st, _ := c.Result(); st != Cancelled {
		t.Fatalf("state %v", st)
	}
}

// initialize that times out ends timed_out, and no cancel is ever sent.
func TestInitializeTimeoutSendsNoCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "initialize", map[string]any{}, CallOptions{Timeout: time.Second})
	h.readFrame()
	h.clock.Advance(2 * time.Second)
	if _, st, _ := c.Result(); st != TimedOut {
		t.Fatalf("state %v", st)
	}
	h.s.Notify("sync", nil)
	if m := h.readFrame(); m.Method != "sync" {
		t.Fatalf("after an initialize timeout the client wrote %s", m.Method)
	}
}

// failingConn blocks the first Send until released, then fails it.
type failingConn struct {
	transport.Conn
	entered, release chan struct{}
}

func (f *failingConn) Send([]byte) error {
	close(f.entered)
	<-f.release
	return errors.New("broken pipe")
}

// A cancel that comes while the request's own write is failing ends the
// request cancelled; it must not stay cancelling.
func TestCancelDuringFailedWriteEndsCancelled(t *testing.T) {
	a, b := transporttest.Pipe()
	defer b.Close()
	fc := &failingConn{Conn: a, entered: make(chan struct{}), release: make(chan struct{})}
	s := New(fc, Config{Clock: newFakeClock()})
	defer s.Close()
	type result struct {
		c   *Call
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := s.Call(context.Background(), "x", nil, CallOptions{})
		done <- result{c, err}
	}()
	<-fc.entered
	if err := s.Cancel(IntID(1), "user"); err != nil {
		t.Fatal(err)
	}
	close(fc.release)
	r := <-done
	if r.err == nil {
		t.Fatal("Call reported no send error")
	}
	if _, st, _ := r.c.Result(); st != Cancelled {
		t.Fatalf("state %v", st)
	}
}

// Closing a session whose table is trimming must fail every pending
// request (trim once compacted the table under shutdown's loop).
func TestShutdownWhileTrimming(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.s.cfg.MaxFinished = 4
	var pending []*Call
	for i := range 20 {
		c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
		h.readFrame()
		if i%2 == 0 {
			h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{}}`, c.ID())
			c.Result()
			continue
		}
		pending = append(pending, c)
	}
	h.peer.Close()
	for _, c := range pending {
		if _, st, _ := c.Result(); st != Failed {
			t.Fatalf("request %s ended %v, want failed", c.ID(), st)
		}
	}
	if n := len(h.s.Snapshot()); n > 4+4/4+1 {
		t.Errorf("table keeps %d requests with MaxFinished 4", n)
	}
}

package session

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// streamConn is a transport with per-request streams, driven by hand.
type streamConn struct {
	in chan transport.Message

	mu     sync.Mutex
	sent   []string
	closed []string
	done   chan struct{}
	once   sync.Once
}

func newStreamConn() *streamConn {
	return &streamConn{in: make(chan transport.Message, 16), done: make(chan struct{})}
}

func (c *streamConn) Send(frame []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, string(frame))
	return nil
}

func (c *streamConn) Recv() (transport.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return transport.Message{}, transport.ErrClosed
	}
}

func (c *streamConn) Close() error { c.once.Do(func() { close(c.done) }); return nil }

func (c *streamConn) CloseRequestStream(id []byte) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = append(c.closed, string(id))
	return true, nil
}

func (c *streamConn) snapshot() (sent, closed []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.sent...), append([]string(nil), c.closed...)
}

func TestRequestErrorFailsThatRequest(t *testing.T) {
	conn := newStreamConn()
	s := New(conn, Config{NoProgressTokens: true})
	defer s.Close()
	c, err := s.Call(context.Background(), "tools/call", nil, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.Call(context.Background(), "tools/list", nil, CallOptions{})
	// The type of the id counts: "1" is no request of ours, so it is noise.
	conn.in <- transport.Message{Kind: wire.KindRequestError, ID: []byte(`"1"`), Data: []byte("wrong id")}
	conn.in <- transport.Message{Kind: wire.KindHTTP, Data: []byte("POST tools/call id 1 → 500")}
	conn.in <- transport.Message{Kind: wire.KindRequestError, ID: []byte(`1`), Data: []byte("the server answered the POST with HTTP 500")}
	_, state, err := waitResult(t, c)
	if state != Failed || err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("state %s err %v", state, err)
	}
	if info, _ := s.Request(other.Ref()).Info(); info.State != Pending {
		t.Fatalf("the other request is %s", info.State)
	}
}

func TestCancelModes(t *testing.T) {
	for _, tc := range []struct {
		mode               CancelMode
		notified, streamed bool
	}{{CancelNotify, true, false}, {CancelClose, false, true}, {CancelBoth, true, true}} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			conn := newStreamConn()
			s := New(conn, Config{NoProgressTokens: true, CancelMode: tc.mode, SettleWindow: -1})
			defer s.Close()
			events := collect(s.Subscribe())
			c, _ := s.Call(context.Background(), "tools/call", nil, CallOptions{})
			if err := s.Request(c.Ref()).Cancel("test"); err != nil {
				t.Fatal(err)
			}
			waitResult(t, c)
			time.Sleep(10 * time.Millisecond)
			sent, closed := conn.snapshot()
			notified := strings.Contains(strings.Join(sent, "\n"), "notifications/cancelled")
			if notified != tc.notified || (len(closed) == 1 && closed[0] == "1") != tc.streamed {
				t.Fatalf("notified %v, closed %q", notified, closed)
			}
			// The event says what was done, for the screen to show.
			e := events.waitFor(t, "CancelSent", func(e Event) bool { _, ok := e.(CancelSent); return ok }).(CancelSent)
			if want := (CancelWire{StreamClosed: tc.streamed, Notified: tc.notified}); e.Wire != want {
				t.Errorf("CancelSent.Wire %+v, want %+v", e.Wire, want)
			}
		})
	}
}

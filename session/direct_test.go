package session

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// directEnd is a Pipe end with a direct path the test drives: it hands
// items to the session's receiver itself, as a stdio reader would.
type directEnd struct {
	*transporttest.End
	mu sync.Mutex
	f  func(transport.Message)
}

func (d *directEnd) ReceiveDirect(f func(transport.Message)) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.f = f
	return true
}

func (d *directEnd) hand(m transport.Message) {
	d.mu.Lock()
	f := d.f
	d.mu.Unlock()
	f(m)
}

// The session takes a direct receiver before it reads anything, handles
// what comes that way as what Recv gives, and drops an item that races in
// after the stream ended (after Close, the transport's reader may be one
// item past its last check): the session is over, nothing may change.
func TestSessionDirectItemsAndNoneAfterTheEnd(t *testing.T) {
	client, server := transporttest.Pipe()
	defer server.Close()
	d := &directEnd{End: client}
	var log buffertest.Buffer
	s := New(d, Config{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	sub := s.Subscribe()
	defer sub.Close()
	d.hand(transport.Message{Kind: wire.KindNoise, Data: []byte("early line")})
	select {
	case ev := <-sub.C:
		if e, ok := ev.(NoiseArrived); !ok || string(e.Line) != "early line" {
			t.Fatalf("first event %#v; want the noise line", ev)
		}
	case <-time.After(hangGuard):
		t.Fatalf("no event for the noise line within %v", hangGuard)
	}
	s.Close()
	d.hand(transport.Message{Kind: wire.KindNoise, Data: []byte("late line")})
	if strings.Contains(log.String(), "late line") {
		t.Fatalf("an item handed over after the session ended was handled:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "early line") {
		t.Fatalf("the log lacks the early noise line:\n%s", log.String())
	}
}

// Items on the direct path and through Recv are handled one at a time:
// what handleInbound keeps between items (the pretty-print watch, the
// related id) has one reader, as before. The race detector sees a second.
func TestSessionDirectAndRecvTakeTurns(t *testing.T) {
	client, server := transporttest.Pipe()
	d := &directEnd{End: client}
	s := New(d, Config{})
	defer s.Close()
	defer server.Close()
	sub := s.Subscribe()
	defer sub.Close()
	const n = 200
	var wg sync.WaitGroup
	wg.Go(func() {
		for range n {
			d.hand(transport.Message{Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`), ID: []byte("1")})
			d.hand(transport.Message{Kind: wire.KindNoise, Data: []byte(`  "id": 1,`)})
		}
	})
	wg.Go(func() {
		for range n {
			_ = client.Inject(wire.KindFrame, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`))
			_ = client.Inject(wire.KindNoise, []byte(`{"jsonrpc":"2.0","id":1,`))
		}
	})
	wg.Wait()
	seen := 0
	timeout := time.After(20 * time.Second)
	for seen < 4*n {
		select {
		case e := <-sub.C:
			switch e.(type) {
			case NotificationArrived, NoiseArrived:
				seen++
			}
		case <-timeout:
			t.Fatalf("%d of %d items handled", seen, 4*n)
		}
	}
}

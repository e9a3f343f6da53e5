package session

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// closingStream is the conn of one 2026-07-28 request over HTTP, as the
// server sees it: the request, then the client closing the stream.
type closingStream struct {
	frame  []byte
	taken  bool
	closed chan struct{} // the client closes the stream
	mu     sync.Mutex
}

func (c *closingStream) Recv() (transport.Message, error) {
	c.mu.Lock()
	first := !c.taken
	c.taken = true
	c.mu.Unlock()
	if first {
		return transport.Message{Kind: wire.KindFrame, Data: c.frame}, nil
	}
	<-c.closed
	return transport.Message{}, transport.ErrStreamClosed
}

func (c *closingStream) Send([]byte) error { return transport.ErrStreamClosed }
func (c *closingStream) Close() error      { return nil }

// A client closing a 2026-07-28 request's stream cancels it: the server
// logs the cancel and the request ends cancelled, even when its handler,
// woken by the session's end, answers at once. The handler used to win
// the race often enough to end the request failed ("context canceled")
// with no "cancel received" line (listen.txtar saw it in CI).
func TestStreamClosedCancelsEvenWhenTheHandlerAnswersFirst(t *testing.T) {
	for i := range 200 {
		var logs buffertest.Buffer
		conn := &closingStream{frame: []byte(`{"jsonrpc":"2.0","id":2,"method":"work"}`), closed: make(chan struct{})}
		started := make(chan struct{})
		s := New(conn, Config{
			Logger: slog.New(slog.NewTextHandler(&logs, nil)),
			Handlers: map[string]Handler{"work": func(ctx context.Context, _ *Incoming) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}},
		})
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the handler did not start within 5s")
		}
		close(conn.closed)
		waitClosed(t, s.Done(), "the session's end after the stream closed")
		s.handlers.Wait()
		rows := s.snapshot()
		if len(rows) != 1 || rows[0].State != Cancelled || !strings.Contains(logs.String(), `msg="cancel received" id=2`) {
			t.Fatalf("run %d: rows %+v; log:\n%s", i, rows, logs.String())
		}
	}
}

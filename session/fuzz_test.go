package session

import (
	"context"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// FuzzHandleFrame feeds arbitrary frames to a session that has requests in
// every state. Nothing may panic, every request keeps a legal state, and
// the session keeps working afterwards.
func FuzzHandleFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":"2","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1,"total":2}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"r"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
		`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":4,"result":1}]`,
		`{"id":1e400,"result":1}`, `{"error":"nope","id":3}`, `[]`, `[[[`, `{"method":5}`,
		``, ` `, // no transport of ours sends an empty frame, but one must not crash the session
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		a, b := transporttest.Pipe()
		defer b.Close()
		go func() { // a peer that swallows whatever the session writes
			for {
				if _, err := b.Recv(); err != nil {
					return
				}
			}
		}()
		clock := clocktest.New()
		s := New(a, Config{Clock: clock, Handlers: map[string]Handler{
			"tools/call": func(ctx context.Context, in *Incoming) (any, error) { <-ctx.Done(); return nil, ctx.Err() },
		}})
		defer closeWithin(t, s)
		var calls []*Call
		for range 4 {
			c, err := s.Call(context.Background(), "tools/call", nil, CallOptions{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			calls = append(calls, c)
		}
		s.Request(calls[2].Ref()).Cancel("fuzz") // id 3: cancelling
		s.handleInbound(transport.Message{Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","id":4,"result":{}}`)})
		s.handleInbound(transport.Message{Kind: wire.KindFrame, Data: frame})
		s.handleInbound(transport.Message{Kind: wire.KindNoise, Data: frame})
		clock.Advance(2 * time.Second)
		for _, info := range s.snapshot() {
			if !info.Incoming && !info.State.Final() {
				t.Fatalf("request %s still %v after every timer ran", info.ID, info.State)
			}
		}
		if info, _ := s.Request(calls[2].Ref()).Info(); info.State != Cancelled {
			t.Fatalf("cancelled request is %v", info.State)
		}
	})
}

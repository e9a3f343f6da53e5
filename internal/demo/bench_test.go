package demo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// BenchmarkEchoCall is one echo tools/call from a client session to the
// demo server over the in-memory pipe, with a progress token and a
// timeout as `mcpoke bench` sends it: both sessions' per-call paths, in
// each era (bench's default, auto, picks 2026-07-28 on the demo).
func BenchmarkEchoCall(b *testing.B) {
	for _, era := range []string{"legacy", "modern"} {
		b.Run(era, func(b *testing.B) {
			a, c := transporttest.Pipe()
			srv := newServer(nil).serve(c)
			cli := session.New(a, session.Config{SettleWindow: -1})
			b.Cleanup(func() { cli.Close(); srv.Close() })
			if era == "modern" {
				cli.UseEra2026(session.Era2026Options{ClientInfo: session.Implementation{Name: "bench", Version: "1"},
					Capabilities: json.RawMessage(`{"roots":{},"sampling":{}}`)})
			}
			params := json.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cli.Do(ctx, "tools/call", params, session.CallOptions{Timeout: benchTimeout}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

const benchTimeout = 30e9

// BenchmarkAnswerNow is the demo's own part of an echo call answered on
// the reader (callImmediately), without the sessions: params read,
// arguments checked, result written, for the params bench sends.
func BenchmarkAnswerNow(b *testing.B) {
	for era, params := range map[string]string{
		"legacy": `{"_meta":{"progressToken":1},"name":"echo","arguments":{"text":"hello"}}`,
		"modern": `{"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version +
			`","io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}},"name":"echo","arguments":{"text":"hello"}}`,
	} {
		b.Run(era, func(b *testing.B) {
			srv, raw := newServer(nil), []byte(params)
			b.ReportAllocs()
			for b.Loop() {
				if _, err, ok := srv.answerNow("echo", raw); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

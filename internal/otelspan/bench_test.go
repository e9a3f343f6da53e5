package otelspan_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/otelspan"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// BenchmarkRoundTripExported is session's BenchmarkRoundTrip with
// --otlp-endpoint: a traceparent in every request and a span per request
// exported to a receiver on loopback.
func BenchmarkRoundTripExported(b *testing.B) {
	recv, err := otlprecv.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer recv.Close()
	exp, err := otelspan.New(otelspan.Options{Endpoint: recv.Endpoint(), Flush: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	a, c := transporttest.Pipe()
	srv := session.New(c, session.Config{MaxFinished: 256, Handlers: map[string]session.Handler{
		"echo": func(_ context.Context, in *session.Incoming) (any, error) { return in.Params, nil },
	}})
	cli := session.New(a, session.Config{NoProgressTokens: true, SettleWindow: -1, Trace: true})
	done := exp.Watch(cli, otelspan.SessionInfo{Transport: "pipe"})
	params := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cli.Do(ctx, "echo", params, session.CallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cli.Close()
	srv.Close()
	<-done
	_ = exp.Close()
}

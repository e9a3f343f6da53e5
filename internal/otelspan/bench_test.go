package otelspan_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/otelspan"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// collectorSink is an OTLP/HTTP collector on loopback that reads each
// batch and answers success: mcpoke's side of the export is what is
// measured, not a collector's decoding, nor mcpoke's receiver, whose cap
// of 10,000 spans a long run passes.
func collectorSink(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK) // an empty ExportTraceServiceResponse: all taken
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkRoundTripExported is session's BenchmarkRoundTrip with
// --otlp-endpoint: a traceparent in every request and a span per request
// exported to a collector on loopback.
func BenchmarkRoundTripExported(b *testing.B) {
	exp, err := otelspan.New(otelspan.Options{Endpoint: collectorSink(b), Flush: 5 * time.Second})
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

// BenchmarkTracingCost measures what tracing costs a request, in one run
// so that the figures share the machine's load: each iteration makes one
// round trip on each of three sessions, in turn — tracing off (mcpoke
// without --trace: no exporter exists), --trace (a traceparent in the
// _meta) and --otlp-endpoint (a span per request too, exported to a
// collector on loopback) — and reports each one's time and its ratio to
// off. TestTracingOffPaysNothingForIt (session) holds the off path in
// allocations, which do not move with the machine's load.
func BenchmarkTracingCost(b *testing.B) {
	exp, err := otelspan.New(otelspan.Options{Endpoint: collectorSink(b), Flush: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	open := func(trace bool) *session.Session {
		a, c := transporttest.Pipe()
		srv := session.New(c, session.Config{MaxFinished: 256, Handlers: map[string]session.Handler{
			"echo": func(_ context.Context, in *session.Incoming) (any, error) { return in.Params, nil },
		}})
		b.Cleanup(func() { srv.Close() })
		return session.New(a, session.Config{NoProgressTokens: true, SettleWindow: -1, Trace: trace, MaxFinished: 256})
	}
	off, traced, exported := open(false), open(true), open(true)
	done := exp.Watch(exported, otelspan.SessionInfo{Transport: "pipe"})
	params := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	sessions := []*session.Session{off, traced, exported}
	// Medians, not means: on a shared machine a few requests wait for a
	// core, and the mean is theirs.
	var took [3][]time.Duration
	b.ReportAllocs()
	turn := 0
	for b.Loop() {
		// Each goes first as often as the others: no place in the turn
		// is cheaper for one of them.
		turn++
		for k := range sessions {
			i := (turn + k) % len(sessions)
			start := time.Now()
			if _, err := sessions[i].Do(ctx, "echo", params, session.CallOptions{}); err != nil {
				b.Fatal(err)
			}
			took[i] = append(took[i], time.Since(start))
		}
	}
	b.StopTimer()
	var med [3]float64
	for i := range took {
		slices.Sort(took[i])
		med[i] = float64(took[i][len(took[i])/2].Nanoseconds())
	}
	b.ReportMetric(med[0], "off-ns/req")
	b.ReportMetric(med[1], "trace-ns/req")
	b.ReportMetric(med[2], "export-ns/req")
	b.ReportMetric(med[1]/med[0], "trace/off")
	b.ReportMetric(med[2]/med[0], "export/off")
	off.Close()
	traced.Close()
	exported.Close()
	<-done
	_ = exp.Close()
}

package session

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// Targets (issue 2): a round trip over the in-memory pair in at most 10 µs
// and 25 allocations; Cancel to notification written in at most 20 µs;
// 10,000 pending requests at most 1 KiB each beyond their params, and all
// of them cancelled within 20 ms.

// serverKept is how many finished requests the server keeps, as the demo
// server keeps them (internal/demo keptRequests): a server has no list
// to show. The client keeps the default.
const serverKept = 256

func newBenchPair(b *testing.B) (cli, srv *Session) { return newBenchPairWith(b, false) }

// newBenchPairWith is newBenchPair whose server answers echo on its
// reader (Config.Immediate) when immediate is set.
func newBenchPairWith(b *testing.B, immediate bool) (cli, srv *Session) {
	a, c := transporttest.Pipe()
	cfg := Config{Handlers: map[string]Handler{
		"echo": func(_ context.Context, in *Incoming) (any, error) { return in.Params, nil },
	}}
	if immediate {
		cfg.Immediate = map[string]ImmediateHandler{
			"echo": func(in *Incoming) (any, error, bool) { return in.Params, nil, true },
		}
	}
	cfg.MaxFinished = serverKept
	srv = New(c, cfg)
	cli = New(a, Config{NoProgressTokens: true, SettleWindow: -1})
	b.Cleanup(func() { cli.Close(); srv.Close() })
	return cli, srv
}

func BenchmarkRoundTrip(b *testing.B) {
	cli, _ := newBenchPair(b)
	params := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cli.Do(ctx, "echo", params, CallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// drainingPeer swallows everything written to it.
func drainingPeer(b *testing.B) *Session {
	a, c := transporttest.Pipe()
	go func() {
		for {
			if _, err := c.Recv(); err != nil {
				return
			}
		}
	}()
	s := New(a, Config{NoProgressTokens: true, SettleWindow: -1})
	b.Cleanup(func() { s.Close(); c.Close() })
	return s
}

// BenchmarkCancelToWritten times Cancel: it returns once the notification
// was handed to the transport. The requests are sent before the clock
// starts.
func BenchmarkCancelToWritten(b *testing.B) {
	s := drainingPeer(b)
	ctx := context.Background()
	calls := make([]*Call, b.N)
	for i := range calls {
		calls[i], _ = s.Call(ctx, "work", nil, CallOptions{})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Request(calls[i].Ref()).Cancel("bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// Benchmark10kPending reports the memory each pending request holds
// beyond its params, and how long cancelling all 10,000 takes.
func Benchmark10kPending(b *testing.B) {
	const n = 10000
	params := json.RawMessage(`{"name":"sleep","arguments":{"seconds":10}}`)
	ctx := context.Background()
	var perReq, cancelMs float64
	// The whole iteration is timed, setup included: stopping the timer for
	// the setup made b.Loop ask for ever more iterations of it (minutes).
	// The figures that matter are the two metrics.
	for b.Loop() {
		s := drainingPeer(b)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			if _, err := s.Call(ctx, "tools/call", params, CallOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		// The drained frames are garbage; what stays is the table. Params
		// are shared with the caller here, so nothing of theirs is counted.
		perReq = float64(after.HeapAlloc-before.HeapAlloc) / n
		start := time.Now()
		if got := s.CancelAll("bench"); got != n {
			b.Fatalf("cancelled %d of %d", got, n)
		}
		cancelMs = float64(time.Since(start).Microseconds()) / 1000
	}
	b.ReportMetric(perReq, "B/pending")
	b.ReportMetric(cancelMs, "ms/cancel-10k")
}

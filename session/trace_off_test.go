package session

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// TestTracingOffPaysNothingForIt holds issue 33's "the export adds no
// measurable time when tracing is off" where it can be held exactly: in
// allocations per round trip, which do not move with the machine's load
// as times do (BenchmarkTracingCost in internal/otelspan reports the
// times and their ratios). Off, a round trip allocates what it did before
// tracing existed; on, the traceparent's allocations show, so the count
// off would see them if the off path made one.
func TestTracingOffPaysNothingForIt(t *testing.T) {
	// BenchmarkRoundTrip's count before tracing (16 at 2889197's parent;
	// 15 since).
	const offMost = 16
	// NewTraceParent, its text and the _meta member: 5 when measured.
	const traceLeast = 3
	off, on := leastAllocsPerRoundTrip(t, false), leastAllocsPerRoundTrip(t, true)
	t.Logf("allocations a round trip: off %.1f, --trace %.1f (ratio %.2f)", off, on, on/off)
	if off > offMost && !raceEnabled {
		t.Errorf("with tracing off a round trip makes %.1f allocations, want at most %d as before tracing", off, offMost)
	}
	if on-off < traceLeast {
		t.Errorf("--trace adds %.1f allocations a round trip (off %.1f, on %.1f), want at least %d: is the off path paying for the traceparent?",
			on-off, off, on, traceLeast)
	}
}

// leastAllocsPerRoundTrip is the least of three tries' allocations per
// echo round trip over the in-memory pair, both sessions counted: the
// count is the process's, and a goroutine an earlier test left winding
// down may allocate during one try.
func leastAllocsPerRoundTrip(t *testing.T, trace bool) float64 {
	a, c := transporttest.Pipe()
	srv := New(c, Config{MaxFinished: serverKept, Handlers: map[string]Handler{
		"echo": func(_ context.Context, in *Incoming) (any, error) { return in.Params, nil },
	}})
	cli := New(a, Config{NoProgressTokens: true, SettleWindow: -1, Trace: trace, MaxFinished: serverKept})
	defer func() { cli.Close(); srv.Close() }()
	params := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	do := func(n int) {
		for range n {
			if _, err := cli.Do(ctx, "echo", params, CallOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	do(2 * serverKept) // both sides' finished lists full: the steady state
	least := -1.0
	for range 3 {
		const n = 2000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		do(n)
		runtime.ReadMemStats(&after)
		if per := float64(after.Mallocs-before.Mallocs) / n; least < 0 || per < least {
			least = per
		}
	}
	return least
}

package proxy

import (
	"runtime"
	"testing"
)

// TestRecordRoundTripAllocations bounds what the records allocate for one
// round trip of a small call, as BenchmarkRecordRoundTrip feeds them:
// 15 when written (20 before the recorder and the transcript's notes read
// frames into buffers of their own). At concurrency 64 the proxy's CPU
// follows its allocations, so one more on every frame is a regression.
func TestRecordRoundTripAllocations(t *testing.T) {
	rec, table, fromHost, toHost := proxyRecords()
	reqs, answers := echoRoundTrips(1000)
	const n = 20_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		fromHost(reqs[i%len(reqs)])
		toHost(answers[i%len(answers)])
	}
	rec.Close() // every record seen
	runtime.ReadMemStats(&after)
	if len(table.Rows()) == 0 {
		t.Fatal("the table saw no request")
	}
	const most = 17 // 15, and room for the maps' and slices' growth
	if per := float64(after.Mallocs-before.Mallocs) / n; per > most {
		t.Errorf("%.1f allocations a round trip, want at most %d", per, most)
	}
}

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
// The count is the process's, so the least of three tries is taken: a
// goroutine an earlier test left winding down allocates in one of them.
func TestRecordRoundTripAllocations(t *testing.T) {
	const most = 17 // 15, and room for the maps' and slices' growth
	least := -1.0
	for range 3 {
		per := recordRoundTripAllocations(t)
		if least < 0 || per < least {
			least = per
		}
	}
	if least > most {
		t.Errorf("%.1f allocations a round trip, want at most %d", least, most)
	}
}

// recordRoundTripAllocations feeds 20,000 round trips to fresh records
// and returns the allocations made per round trip until all were seen.
func recordRoundTripAllocations(t *testing.T) float64 {
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
	return float64(after.Mallocs-before.Mallocs) / n
}

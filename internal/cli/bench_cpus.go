package cli

import (
	"os"
	"runtime"
)

// benchCPUs is how many CPUs (Go's GOMAXPROCS) bench's own client runs
// on: --cpus when given, else GOMAXPROCS when the environment sets it,
// else one per call in flight, at most as many as Go would use. bench
// measures the server, and its client should take as little of the
// machine as it can: with one call in flight a second CPU does no work
// of its own, yet every hand-off between the client's goroutines (its
// reader and the caller) wakes a thread that spins on it, on the core
// the server needs. On 2 cores that inflated the p50 of a pipe round
// trip with one hand-off by half (internal/floor's
// BenchmarkPipeFloorHandOff); the server is left as it is.
func benchCPUs(flag, concurrency int) int {
	if flag > 0 {
		return flag
	}
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	return max(1, min(concurrency, runtime.GOMAXPROCS(0)))
}

package cli

import (
	"runtime"
	"testing"
)

func TestBenchCPUs(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	procs := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ flag, concurrency, want int }{
		{0, 1, 1},
		{0, 64, procs},
		{3, 1, 3}, // --cpus wins
		{0, 2, min(2, procs)},
	} {
		if got := benchCPUs(c.flag, c.concurrency); got != c.want {
			t.Errorf("benchCPUs(%d, %d) = %d, want %d", c.flag, c.concurrency, got, c.want)
		}
	}
	t.Setenv("GOMAXPROCS", "5") // the environment's choice is kept
	if got := benchCPUs(0, 1); got != procs {
		t.Errorf("with GOMAXPROCS set, benchCPUs(0, 1) = %d, want the running %d", got, procs)
	}
}

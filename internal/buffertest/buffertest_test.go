package buffertest

import (
	"strings"
	"sync"
	"testing"
)

// Writers on many goroutines and a reader at once: every write is kept
// whole (the race detector checks the rest).
func TestConcurrentWritesAreKept(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("ab\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := strings.Count(b.String(), "ab\n"); got != 800 {
		t.Errorf("%d whole writes, want 800", got)
	}
}

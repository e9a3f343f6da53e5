package mcp

import (
	"testing"
	"time"
)

// waitLimit bounds a test's wait on a channel: well under the package
// timeout, so a hang fails the test that hung, saying what it waited for.
const waitLimit = 10 * time.Second

// recvWithin receives from ch, failing the test if nothing comes within
// waitLimit; what says what the value means.
func recvWithin[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out after %s waiting for %s", waitLimit, what)
		var zero T
		return zero
	}
}

package otlprecv

import (
	"testing"
	"time"
)

// TestEndingOf: a span that ended a few milliseconds before the time
// mcpoke read for its cancel (after the write returned) ended at it, as
// one that ended within 5 ms after it; one 60 ms before had its work done.
func TestEndingOf(t *testing.T) {
	cancel := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]Ending{
		-time.Second: EndedBefore, -60 * time.Millisecond: EndedBefore, -7700 * time.Microsecond: EndedAt,
		0: EndedAt, 4 * time.Millisecond: EndedAt, 6 * time.Millisecond: EndedAfter, 3 * time.Second: EndedAfter,
	} {
		if got := EndingOf(cancel.Add(d), cancel); got != want {
			t.Errorf("a span that ended %v from the cancel: %d, want %d", d, got, want)
		}
	}
}

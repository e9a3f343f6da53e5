package rows

import (
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// nextWithin is f.Next, failing the test if it takes longer than limit.
func nextWithin(t *testing.T, f *Feed, limit time.Duration, what string) *Batch {
	t.Helper()
	got := make(chan *Batch, 1)
	go func() { got <- f.Next() }()
	select {
	case b := <-got:
		return b
	case <-time.After(limit):
		f.Stop() // releases the Next still waiting
		t.Fatalf("no batch within %v: %s", limit, what)
		return nil
	}
}

// The first batch goes out as soon as there is one, however long the
// frame interval; the next waits for the interval since the last.
func TestFeedDeliversAtOnceThenPacesByTheInterval(t *testing.T) {
	t.Run("the first batch is not held back", func(t *testing.T) {
		f := NewFeed(make(chan session.Event), time.Hour)
		defer f.Stop()
		f.add(session.NoiseArrived{})
		if b := nextWithin(t, f, 5*time.Second, "the first batch, with an interval of an hour"); b == nil || b.Noise != 1 {
			t.Fatalf("first batch %+v, want the one noise event", b)
		}
	})
	t.Run("the next batch waits the interval", func(t *testing.T) {
		const interval = 300 * time.Millisecond
		f := NewFeed(make(chan session.Event), interval)
		defer f.Stop()
		f.add(session.NoiseArrived{})
		if b := nextWithin(t, f, 5*time.Second, "the first batch"); b == nil {
			t.Fatal("no first batch")
		}
		first := time.Now()
		f.add(session.NoiseArrived{})
		b := nextWithin(t, f, 5*time.Second, "the second batch")
		if waited := time.Since(first); b == nil || waited < interval/2 {
			t.Errorf("second batch %v after the first, want about %v: frames are not paced", waited, interval)
		}
	})
	t.Run("a batch goes at once when the interval has passed", func(t *testing.T) {
		f := NewFeed(make(chan session.Event), time.Hour)
		defer f.Stop()
		f.mu.Lock()
		f.lastSent = time.Now().Add(-2 * time.Hour) // as if the last batch went two intervals ago
		f.mu.Unlock()
		f.add(session.NoiseArrived{})
		if b := nextWithin(t, f, 5*time.Second, "a batch an interval after the last"); b == nil {
			t.Fatal("no batch")
		}
	})
}

// A feed asked for no interval paces at the default frame rate; one
// given an interval keeps it.
func TestFeedDefaultsItsInterval(t *testing.T) {
	for _, tt := range []struct {
		asked, want time.Duration
	}{{0, defaultFrameInterval}, {-time.Second, defaultFrameInterval}, {time.Millisecond, time.Millisecond}, {time.Hour, time.Hour}} {
		f := NewFeed(make(chan session.Event), tt.asked)
		f.Stop()
		if f.interval != tt.want {
			t.Errorf("interval asked %v: paces at %v, want %v", tt.asked, f.interval, tt.want)
		}
	}
}

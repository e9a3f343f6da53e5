package cli

import (
	"strings"
	"testing"
	"time"
)

func TestHistogramBuckets(t *testing.T) {
	us := time.Microsecond
	d := []time.Duration{40 * us, 60 * us, 70 * us, 150 * us, 3 * time.Millisecond, 3 * time.Millisecond}
	got := histogram(d)
	want := []histogramBucket{{0.02, 0.05, 1}, {0.05, 0.1, 2}, {0.1, 0.2, 1}, {0.2, 0.5, 0}, {0.5, 1, 0}, {1, 2, 0}, {2, 5, 2}}
	if len(got) != len(want) {
		t.Fatalf("buckets %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bucket %d is %v, want %v", i, got[i], want[i])
		}
	}
	if h := histogram(nil); h == nil || len(h) != 0 {
		t.Errorf("no samples: %v, want an empty list (never null in --json)", h)
	}
	// An edge belongs to the bucket it starts.
	if h := histogram([]time.Duration{time.Millisecond}); len(h) != 1 || h[0].FromMs != 1 || h[0].ToMs != 2 {
		t.Errorf("1ms: %v", h)
	}
}

func TestPrintHistogramScalesBars(t *testing.T) {
	var b strings.Builder
	printHistogram(&b, []histogramBucket{{0.1, 0.2, 100}, {0.2, 0.5, 0}, {0.5, 1, 0}, {1, 2, 1}})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "0.2ms–1ms") || !strings.HasPrefix(lines[0], "histogram") || !strings.Contains(lines[0], strings.Repeat("█", histogramBar)+" 100") ||
		!strings.Contains(lines[2], "▏") || strings.Contains(lines[1], "█") {
		t.Errorf("histogram:\n%s", b.String())
	}
}

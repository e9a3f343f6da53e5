package cli

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The sketch's percentiles are those of the sorted samples within 0.4%,
// its count, min, max and mean exact, however the samples spread.
func TestSketchPercentilesWithinBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func() time.Duration{
		"lognormal": func() time.Duration { return time.Duration(math.Exp(rng.NormFloat64()*1.5 + 12)) },
		"uniform":   func() time.Duration { return time.Duration(rng.Int64N(int64(10 * time.Millisecond))) },
		"tiny":      func() time.Duration { return time.Duration(rng.Int64N(300)) },
		"bimodal": func() time.Duration {
			if rng.IntN(10) == 0 {
				return 30*time.Second + time.Duration(rng.Int64N(int64(time.Second)))
			}
			return 50*time.Microsecond + time.Duration(rng.Int64N(int64(time.Microsecond)))
		},
	}
	for name, gen := range shapes {
		var d []time.Duration
		var s latencySketch
		for range 100_000 {
			x := gen()
			d = append(d, x)
			s.add(x)
		}
		slices.Sort(d)
		for _, p := range []int{1, 50, 90, 99, 100} {
			exact, got := percentile(d, p), s.percentile(p)
			if rel := math.Abs(float64(got-exact)) / float64(max(exact, 1)); rel > 1.0/(2*sketchSub)+1e-9 && got != exact {
				t.Errorf("%s p%d: %v, exact %v (%.3f%% off)", name, p, got, exact, rel*100)
			}
		}
		want := summarize(d)
		got := s.stats()
		if got.MinMs != want.MinMs || got.MaxMs != want.MaxMs || got.MeanMs != want.MeanMs || s.len() != len(d) {
			t.Errorf("%s: min/max/mean/count %v %v %v %d, want %v %v %v %d", name, got.MinMs, got.MaxMs, got.MeanMs, s.len(), want.MinMs, want.MaxMs, want.MeanMs, len(d))
		}
	}
}

// Every duration falls in a bucket whose middle is within the bound, and
// the buckets stay few: the sketch's size does not grow with the count.
func TestSketchBucketsBounded(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 129, 255, 256, 1000, 1 << 20, 1<<40 + 12345, math.MaxInt64} {
		i := sketchIndex(v)
		mid := sketchValue(i)
		if rel := math.Abs(float64(mid)-float64(v)) / math.Max(float64(v), 1); rel > 1.0/(2*sketchSub)+1e-9 {
			t.Errorf("%d: bucket %d reads back as %d (%.3f%% off)", v, i, mid, rel*100)
		}
		if i > 0 && sketchIndex(v-1) > i {
			t.Errorf("%d: buckets not in order", v)
		}
	}
	var s latencySketch
	s.add(math.MaxInt64)
	s.add(-5)
	if len(s.counts) > 8000 || s.min != 0 || s.percentile(1) != 0 {
		t.Errorf("%d buckets for the largest duration; min %v", len(s.counts), s.min)
	}
}

func TestSketchHistogramAsSamples(t *testing.T) {
	us := time.Microsecond
	d := []time.Duration{40 * us, 60 * us, 70 * us, 150 * us, 3 * time.Millisecond, 3 * time.Millisecond}
	var s latencySketch
	for _, x := range d {
		s.add(x)
	}
	if got, want := sketchHistogram(&s), histogram(d); !slices.Equal(got, want) {
		t.Errorf("sketch histogram %v, samples' %v", got, want)
	}
	if h := sketchHistogram(&latencySketch{}); h == nil || len(h) != 0 {
		t.Errorf("empty sketch: %v, want an empty list", h)
	}
	var a, b latencySketch
	a.add(time.Millisecond)
	b.add(time.Second)
	b.add(2 * time.Second)
	a.merge(&b)
	if a.len() != 3 || a.min != time.Millisecond || a.max != 2*time.Second || a.atMost(time.Second) != 2 {
		t.Errorf("merged: %d, min %v, max %v, atMost(1s) %d", a.len(), a.min, a.max, a.atMost(time.Second))
	}
}

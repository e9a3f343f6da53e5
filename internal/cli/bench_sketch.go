package cli

import (
	"math/bits"
	"time"
)

// latencySketch counts durations in log-linear buckets of fixed size, so
// that a storm of a million calls takes the same memory as one of a
// thousand. Each power of two is split into sketchSub equal buckets: a
// duration is read back as its bucket's middle, within 1/(2·sketchSub)
// (0.4%) of what it was. Durations below sketchSub ns are kept exactly.
// Count, sum, min and max are exact. Not safe for concurrent use.
type latencySketch struct {
	counts   []uint64 // grown to the highest bucket used, ~7,400 at most
	n        int
	sum      time.Duration
	min, max time.Duration
}

// sketchSubBits gives 2^7 = 128 buckets per power of two.
const (
	sketchSubBits = 7
	sketchSub     = 1 << sketchSubBits
)

// sketchIndex is the bucket of v ns (v ≥ 0).
func sketchIndex(v uint64) int {
	if v < sketchSub {
		return int(v)
	}
	shift := bits.Len64(v) - sketchSubBits - 1 // v>>shift is in [128, 256)
	return (shift+1)*sketchSub + int(v>>shift) - sketchSub
}

// sketchValue is the middle of bucket i, in ns.
func sketchValue(i int) uint64 {
	if i < sketchSub {
		return uint64(i)
	}
	shift := i/sketchSub - 1
	lo := uint64(i%sketchSub+sketchSub) << shift
	return lo + (uint64(1)<<shift)/2
}

// add counts one duration; a negative one counts as 0.
func (s *latencySketch) add(d time.Duration) {
	d = max(d, 0)
	i := sketchIndex(uint64(d))
	if i >= len(s.counts) {
		s.counts = append(s.counts, make([]uint64, i+1-len(s.counts))...)
	}
	s.counts[i]++
	if s.n == 0 || d < s.min {
		s.min = d
	}
	s.max = max(s.max, d)
	s.n++
	s.sum += d
}

// merge adds o's counts to s.
func (s *latencySketch) merge(o *latencySketch) {
	if o.n == 0 {
		return
	}
	if len(o.counts) > len(s.counts) {
		s.counts = append(s.counts, make([]uint64, len(o.counts)-len(s.counts))...)
	}
	for i, c := range o.counts {
		s.counts[i] += c
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	s.max = max(s.max, o.max)
	s.n += o.n
	s.sum += o.sum
}

// len is how many durations were counted.
func (s *latencySketch) len() int { return s.n }

// percentile is the nearest-rank p-th percentile (as percentile() on the
// sorted samples), within the bucket's error, never outside [min, max].
func (s *latencySketch) percentile(p int) time.Duration {
	if s.n == 0 {
		return 0
	}
	rank := uint64(max((p*s.n+99)/100, 1))
	var seen uint64
	for i, c := range s.counts {
		seen += c
		if seen >= rank {
			return min(max(time.Duration(sketchValue(i)), s.min), s.max)
		}
	}
	return s.max
}

// atMost counts the durations at most d: all of those, and those above
// it in d's own bucket (within 0.8% of d).
func (s *latencySketch) atMost(d time.Duration) int {
	last := sketchIndex(uint64(max(d, 0)))
	n := 0
	for i, c := range s.counts {
		if i > last {
			break
		}
		n += int(c)
	}
	return n
}

// each calls f for every bucket with durations in it, in order: the
// bucket's middle and its count.
func (s *latencySketch) each(f func(d time.Duration, n int)) {
	for i, c := range s.counts {
		if c > 0 {
			f(min(max(time.Duration(sketchValue(i)), s.min), s.max), int(c))
		}
	}
}

// stats is summarize() for the sketch.
func (s *latencySketch) stats() latencyStats {
	if s.n == 0 {
		return latencyStats{}
	}
	return latencyStats{
		P50Ms:  ms(s.percentile(50)),
		P90Ms:  ms(s.percentile(90)),
		P99Ms:  ms(s.percentile(99)),
		MaxMs:  ms(s.max),
		MinMs:  ms(s.min),
		MeanMs: ms(s.sum / time.Duration(s.n)),
	}
}

package cli

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// histogramBucket counts the round trips from FromMs up to ToMs.
type histogramBucket struct {
	FromMs float64 `json:"fromMs"`
	ToMs   float64 `json:"toMs"`
	Count  int     `json:"count"`
}

// histogramSteps are the bucket edges within a decade: a log scale in
// steps people read at a glance (1, 2, 5, 10, 20, 50 ...).
var histogramSteps = []float64{1, 2, 5}

// histogramBar is the longest bar drawn, for the fullest bucket.
const histogramBar = 30

// histogram counts round trips in log-scale buckets, from the one that
// holds the fastest to the one that holds the slowest, empty ones
// between included so that the gaps show.
func histogram(d []time.Duration) []histogramBucket {
	if len(d) == 0 {
		return []histogramBucket{}
	}
	lo, hi := d[0], d[0]
	for _, x := range d {
		lo, hi = min(lo, x), max(hi, x)
	}
	return histogramOf(lo, hi, func(f func(time.Duration, int)) {
		for _, x := range d {
			f(x, 1)
		}
	})
}

// sketchHistogram is histogram() for a sketch: each of its buckets goes
// whole into the display bucket that holds its middle.
func sketchHistogram(s *latencySketch) []histogramBucket {
	if s.len() == 0 {
		return []histogramBucket{}
	}
	return histogramOf(s.min, s.max, s.each)
}

// histogramOf lays out the buckets from lo to hi and counts what each
// gives (a duration and how many times it occurred).
func histogramOf(lo, hi time.Duration, each func(func(time.Duration, int))) []histogramBucket {
	var buckets []histogramBucket
	for from := edgeBelow(ms(lo)); from <= ms(hi); from = nextEdge(from) {
		buckets = append(buckets, histogramBucket{FromMs: from, ToMs: nextEdge(from)})
	}
	each(func(x time.Duration, n int) {
		v := ms(x)
		for i := range buckets {
			if v < buckets[i].ToMs || i == len(buckets)-1 {
				buckets[i].Count += n
				break
			}
		}
	})
	return buckets
}

// edgeBelow is the largest bucket edge not above v (ms); the smallest
// edge is 0.0001ms, a tenth of a microsecond, the report's resolution.
func edgeBelow(v float64) float64 {
	edge := 0.0001
	for next := nextEdge(edge); next <= v; next = nextEdge(next) {
		edge = next
	}
	return edge
}

// nextEdge is the edge after e: 1 → 2 → 5 → 10 in each decade.
func nextEdge(e float64) float64 {
	decade := math.Pow(10, math.Floor(math.Log10(e)+1e-9))
	step := e / decade
	for _, s := range histogramSteps {
		if s > step+1e-9 {
			return round(s * decade)
		}
	}
	return round(10 * decade)
}

// round drops the float noise of decade arithmetic: 0.0001*5 is 0.0005.
func round(v float64) float64 {
	return math.Round(v*1e6) / 1e6
}

// printHistogram draws one line per bucket: its range, a bar scaled to
// the fullest bucket, and the count. Empty buckets in a row share one
// line, so that one slow outlier does not make a tall picture.
func printHistogram(w io.Writer, buckets []histogramBucket) {
	most := 0
	for _, b := range buckets {
		most = max(most, b.Count)
	}
	if most == 0 {
		return
	}
	label := "histogram"
	for i := 0; i < len(buckets); i++ {
		b := buckets[i]
		if b.Count == 0 {
			for i+1 < len(buckets) && buckets[i+1].Count == 0 {
				i++
			}
			b.ToMs = buckets[i].ToMs
		}
		bar := strings.Repeat("█", b.Count*histogramBar/most)
		if bar == "" && b.Count > 0 {
			bar = "▏"
		}
		fmt.Fprintf(w, "%-11s %15s  %-*s %d\n", label, human(b.FromMs)+"–"+human(b.ToMs), histogramBar, bar, b.Count)
		label = ""
	}
}

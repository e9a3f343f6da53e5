package cpumeter

import (
	"time"
)

// Window is the CPU a family burnt over one span of time.
type Window struct {
	// From and To are offsets from the moment the verdict is about.
	From, To time.Duration
	CPU      time.Duration
	// Rate is CPU per second of the span: 1 is one core busy.
	Rate float64
	Busy bool
}

// Verdict says whether a family went quiet after a moment (a cancel).
type Verdict struct {
	// CPUAfter is the CPU burnt from the moment to the last sample.
	CPUAfter time.Duration
	// Watched is how long after the moment the samples go.
	Watched time.Duration
	// Limit is the rate above which a window is busy: the idle baseline
	// plus a threshold.
	Limit float64
	// Windows are the spans after the moment.
	Windows []Window
	// Quiet: the last Repeats windows were all under Limit; QuietAfter is
	// when the run of quiet windows to the end began.
	Quiet      bool
	QuietAfter time.Duration
	// Burning: the last Repeats windows were all over Limit; Rate is the
	// mean rate over them.
	Burning bool
	Rate    float64
}

// Repeats is how many windows in a row a verdict rests on, so that one
// tick of noise decides nothing.
const Repeats = 3

// Threshold is what a window must burn above the idle baseline to be
// busy: a tenth of a core, more than two ticks of a 250 ms window.
const Threshold = 0.1

// Rate is the CPU per second burnt between two samples.
func Rate(a, b Sample) float64 {
	d := b.At.Sub(a.At)
	if d <= 0 {
		return 0
	}
	return float64(b.CPU-a.CPU) / float64(d)
}

// Judge cuts the samples taken after at into windows of width and says
// whether the family went quiet (every window of the last Repeats at
// most idle+Threshold) or is still burning (every one above). Neither is
// noise, or too few samples.
func Judge(samples []Sample, at time.Time, width time.Duration, idle float64) Verdict {
	v := Verdict{Limit: idle + Threshold}
	var after []Sample
	for _, s := range samples {
		if !s.At.Before(at) {
			after = append(after, s)
		}
	}
	if len(after) < 2 {
		return v
	}
	first, last := after[0], after[len(after)-1]
	v.CPUAfter, v.Watched = last.CPU-first.CPU, last.At.Sub(at)
	start := first
	for _, s := range after[1:] {
		if s.At.Sub(start.At) < width && s != last {
			continue
		}
		r := Rate(start, s)
		v.Windows = append(v.Windows, Window{From: start.At.Sub(at), To: s.At.Sub(at), CPU: s.CPU - start.CPU, Rate: r, Busy: r > v.Limit})
		start = s
	}
	n := len(v.Windows)
	if n < Repeats {
		return v
	}
	tail := v.Windows[n-Repeats:]
	v.Quiet, v.Burning = true, true
	var sum float64
	for _, w := range tail {
		v.Quiet = v.Quiet && !w.Busy
		v.Burning = v.Burning && w.Busy
		sum += w.Rate
	}
	if v.Burning {
		v.Rate = sum / Repeats
	}
	if v.Quiet {
		i := n
		for i > 0 && !v.Windows[i-1].Busy {
			i--
		}
		v.QuietAfter = 0
		if i > 0 {
			v.QuietAfter = v.Windows[i].From
		}
	}
	return v
}

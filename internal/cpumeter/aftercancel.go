package cpumeter

import (
	"fmt"
	"time"
)

// AfterCancelWindow is the width of the windows a cancel's aftermath is
// judged in.
const AfterCancelWindow = 250 * time.Millisecond

// AfterCancel is what a family burnt after a cancel: the meter of call's
// "server CPU after cancel" line and of the TUI's cancelled rows.
type AfterCancel struct {
	// CPU is what the family used from the cancel to the last sample,
	// Watched how long after the cancel that was.
	CPU, Watched time.Duration
	// Verdict is "quiet" (from QuietAfter), "burning" (Rate cores at the
	// end) or "unclear" (noise, or too short a watch).
	Verdict    string
	QuietAfter time.Duration
	Rate       float64
}

// JudgeAfterCancel judges the samples from the cancel at on, the family
// taken as idle before it; false when there is nothing to judge: no
// samples, or a watch shorter than one window (a call that ended at its
// cancel), where any figure would be noise.
func JudgeAfterCancel(samples []Sample, at time.Time) (AfterCancel, bool) {
	if len(samples) == 0 || at.IsZero() {
		return AfterCancel{}, false
	}
	v := Judge(samples, at, AfterCancelWindow, 0)
	if v.Watched < AfterCancelWindow {
		return AfterCancel{}, false
	}
	a := AfterCancel{CPU: v.CPUAfter, Watched: v.Watched, Verdict: "unclear"}
	switch {
	case v.Burning:
		a.Verdict, a.Rate = "burning", v.Rate
	case v.Quiet:
		a.Verdict, a.QuietAfter = "quiet", v.QuietAfter
	}
	return a, true
}

// Line says it in a line: "quiet after 0.30 s; 0.02 s CPU after the
// cancel".
func (a AfterCancel) Line() string {
	cpu := a.CPU.Seconds()
	switch a.Verdict {
	case "quiet":
		return fmt.Sprintf("quiet after %.2f s; %.2f s CPU after the cancel", a.QuietAfter.Seconds(), cpu)
	case "burning":
		return fmt.Sprintf("still burning %.2f CPU %.1f s after the cancel; %.2f s CPU after it: the work goes on", a.Rate, a.Watched.Seconds(), cpu)
	}
	return fmt.Sprintf("%.2f s CPU in the %.1f s after the cancel (too short or too irregular to say whether the work stopped)", cpu, a.Watched.Seconds())
}

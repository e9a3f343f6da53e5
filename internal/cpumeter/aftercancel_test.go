package cpumeter

import (
	"testing"
	"time"
)

// A call that ended at its cancel was watched too briefly to say
// anything: no line, rather than "0.00 s CPU in the 0.0 s after the
// cancel"; a watch of several windows is judged.
func TestJudgeAfterCancelNeedsAWindow(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	idle := func(n int) []Sample {
		var out []Sample
		for i := range n {
			out = append(out, Sample{At: at.Add(time.Duration(i) * 50 * time.Millisecond), CPU: 10 * time.Millisecond, Procs: 1})
		}
		return out
	}
	if a, ok := JudgeAfterCancel(idle(3), at); ok {
		t.Errorf("a 100 ms watch is judged: %+v (%s)", a, a.Line())
	}
	a, ok := JudgeAfterCancel(idle(40), at)
	if !ok || a.Verdict != "quiet" {
		t.Errorf("a 2 s idle watch: %+v, %v; want quiet", a, ok)
	}
}

package cli

import (
	"time"

	"github.com/mcpoke/mcpoke/internal/cpumeter"
)

// cpuEvery is how often call samples the server's CPU time.
const cpuEvery = 50 * time.Millisecond

// maxCPUSamples bounds the samples kept (about 17 minutes at cpuEvery);
// past it sampling stops.
const maxCPUSamples = 20000

// startCPUSampler samples the family of the server process pid while a
// call runs, so that the report can say whether the server went on
// working after the cancel (the same meter as mcpoke check's check 10);
// nil when it cannot be metered.
func startCPUSampler(pid int) *cpumeter.Sampler {
	return cpumeter.StartSampler(pid, cpuEvery, maxCPUSamples)
}

// reportCPU is what the server's processes burnt after the cancel.
type reportCPU struct {
	// CPUMs is the CPU time the family used from the cancel to the last
	// sample, WatchedMs how long after the cancel that was.
	CPUMs     float64 `json:"cpuMs"`
	WatchedMs float64 `json:"watchedMs"`
	// Verdict: "quiet" (QuietAfterMs says from when), "burning" (Rate in
	// cores at the end), or "unclear" (noise, or too short a watch).
	Verdict      string   `json:"verdict"`
	QuietAfterMs *float64 `json:"quietAfterMs,omitempty"`
	Rate         float64  `json:"rate,omitempty"`
	// line is the meter's own line for the text report.
	line string
}

// cpuAfterCancel judges the samples from the cancel on; nil when there is
// nothing to judge.
func cpuAfterCancel(samples []cpumeter.Sample, cancelAt time.Time) *reportCPU {
	a, ok := cpumeter.JudgeAfterCancel(samples, cancelAt)
	if !ok {
		return nil
	}
	r := &reportCPU{CPUMs: ms(a.CPU), WatchedMs: ms(a.Watched), Verdict: a.Verdict, line: a.Line()}
	switch a.Verdict {
	case "burning":
		r.Rate = a.Rate
	case "quiet":
		q := ms(a.QuietAfter)
		r.QuietAfterMs = &q
	}
	return r
}

// text is the report's line: "quiet after 0.30 s; 0.02 s CPU after the
// cancel".
func (r *reportCPU) text() string { return r.line }

package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/cpumeter"
)

// cpuEvery is how often call samples the server's CPU time.
const cpuEvery = 50 * time.Millisecond

// maxCPUSamples bounds the samples kept (about 17 minutes at cpuEvery);
// past it sampling stops.
const maxCPUSamples = 20000

// cpuSampler reads the CPU time of the server's process family while a
// call runs, so that the report can say whether the server went on
// working after the cancel (the same meter as mcpoke check's check 10).
type cpuSampler struct {
	m    *cpumeter.Meter
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	samples []cpumeter.Sample
}

// startCPUSampler samples the family of process pid, or returns nil when
// it cannot be metered (no process of mcpoke's, not Linux).
func startCPUSampler(pid int) *cpuSampler {
	if pid <= 0 {
		return nil
	}
	m, err := cpumeter.New(pid)
	if err != nil {
		return nil
	}
	s := &cpuSampler{m: m, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *cpuSampler) run() {
	defer close(s.done)
	t := time.NewTicker(cpuEvery)
	defer t.Stop()
	for {
		sample, err := s.m.Sample()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.samples = append(s.samples, sample)
		full := len(s.samples) >= maxCPUSamples
		s.mu.Unlock()
		if full {
			return
		}
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

// finish stops sampling and returns the samples.
func (s *cpuSampler) finish() []cpumeter.Sample {
	if s == nil {
		return nil
	}
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples
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
}

// cpuAfterCancel judges the samples from the cancel on; nil when there is
// nothing to judge.
func cpuAfterCancel(samples []cpumeter.Sample, cancelAt time.Time) *reportCPU {
	if len(samples) == 0 || cancelAt.IsZero() {
		return nil
	}
	// The baseline: what the family burnt before the call, if sampled; a
	// call's server is taken as idle otherwise.
	v := cpumeter.Judge(samples, cancelAt, 250*time.Millisecond, 0)
	if v.Watched <= 0 {
		return nil
	}
	r := &reportCPU{CPUMs: ms(v.CPUAfter), WatchedMs: ms(v.Watched), Verdict: "unclear"}
	switch {
	case v.Burning:
		r.Verdict, r.Rate = "burning", v.Rate
	case v.Quiet:
		q := ms(v.QuietAfter)
		r.Verdict, r.QuietAfterMs = "quiet", &q
	}
	return r
}

// text is the report's line: "quiet after 0.3 s; 0.02 s CPU after the
// cancel".
func (r *reportCPU) text() string {
	cpu := r.CPUMs / 1000
	switch r.Verdict {
	case "quiet":
		return fmt.Sprintf("quiet after %.2f s; %.2f s CPU after the cancel", *r.QuietAfterMs/1000, cpu)
	case "burning":
		return fmt.Sprintf("still burning %.2f CPU %.1f s after the cancel; %.2f s CPU after it: the work goes on", r.Rate, r.WatchedMs/1000, cpu)
	}
	return fmt.Sprintf("%.2f s CPU in the %.1f s after the cancel (too short or too irregular to say whether the work stopped)", cpu, r.WatchedMs/1000)
}

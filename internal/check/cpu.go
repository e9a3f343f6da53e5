package check

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/cpumeter"
)

// Check 10's sampling.
const (
	// cpuEvery is how often the server's CPU time is read.
	cpuEvery = 50 * time.Millisecond
	// cpuWindow is the span a rate is taken over: 25 ticks of /proc's
	// 10 ms, so that one tick is 4% of a core.
	cpuWindow = 250 * time.Millisecond
	// cpuIdle is how long the idle baseline is measured.
	cpuIdle = 500 * time.Millisecond
	// cpuSettle bounds the wait for the family to be idle before the call.
	cpuSettle = 10 * time.Second
	// cpuWorking is how long the call is sampled at work before the cancel.
	cpuWorking = 500 * time.Millisecond
	// cpuAfterMin is the least time watched after the cancel: enough
	// windows for cpumeter.Repeats after a short wind-down.
	cpuAfterMin = 2 * time.Second
)

// stopsWork is check 10: the CPU time of the server's process family
// before the call, while it works, and after the cancel. Work that
// clearly goes on is a broken SHOULD; the family back at its idle
// baseline is a pass.
func (r *runner) stopsWork(ctx context.Context, res *Result) {
	e := &res.Evidence
	if skip, na := r.noMeter(); skip != "" {
		if r.opts.Spans != nil {
			r.stopsWorkBySpans(ctx, res, skip)
			return
		}
		res.Status, res.Reason, res.NotApplicable = Skip, skip, na
		return
	}
	m, err := cpumeter.New(r.conn.ServerPID())
	if err != nil {
		res.Status, res.Reason, res.NotApplicable = Skip, "the server's CPU time cannot be read: "+err.Error(), errors.Is(err, cpumeter.ErrUnsupported)
		return
	}
	var samples []cpumeter.Sample
	sample := func() error {
		s, err := m.Sample()
		if err == nil {
			samples = append(samples, s)
		}
		return err
	}
	sampleFor := func(d time.Duration) error {
		end := time.Now().Add(d)
		for time.Now().Before(end) && ctx.Err() == nil {
			r.sleep(ctx, cpuEvery)
			if err := sample(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := sample(); err != nil {
		res.Status, res.Reason = Skip, "the server's CPU time cannot be read: "+err.Error()
		return
	}
	// The baseline waits for the family to settle: an earlier call (the
	// probe's, say) may still be burning.
	idle, settled := -1.0, time.Now().Add(cpuSettle)
	for {
		from := samples[len(samples)-1]
		if err := sampleFor(cpuIdle); err != nil {
			res.Status, res.Reason = Skip, "the server's CPU time cannot be read: "+err.Error()
			return
		}
		rate := cpumeter.Rate(from, samples[len(samples)-1])
		if idle < 0 || rate < idle {
			idle = rate
		}
		if rate <= cpumeter.Threshold || !time.Now().Before(settled) || ctx.Err() != nil {
			break
		}
	}
	if idle > cpumeter.Threshold {
		e.fact("the server kept burning %.2f CPU for %s before the call, with nothing asked of it: that is the baseline", idle, cpuSettle)
	}
	samples = samples[len(samples)-1:]
	_, ref, skip := r.startCall(ctx, "it could be cancelled")
	if skip != "" {
		res.Status, res.Reason = Skip, skip
		return
	}
	workFrom := len(samples)
	_ = sample()
	_ = sampleFor(cpuWorking)
	working := cpumeter.Rate(samples[workFrom], samples[len(samples)-1])
	if ref.Cancel(cancelReason) != nil {
		info, _ := ref.Info()
		res.Status, res.Reason = Skip, fmt.Sprintf("the call ended %s before it could be cancelled", info.State)
		return
	}
	info, _ := ref.Info()
	cancelAt := info.LateFrom()
	_ = sample()
	watch := max(r.opts.Listen, cpuAfterMin)
	if err := sampleFor(time.Until(cancelAt.Add(watch))); err != nil {
		e.fact("sampling stopped: %v", err)
	}
	v := cpumeter.Judge(samples, cancelAt, cpuWindow, idle)
	e.fact("CPU of the server's process family (%d %s, read from /proc every %s): %.2f CPU idle, %.2f CPU while %s worked (request %s), cancelled %s into the call",
		samples[len(samples)-1].Procs, plural(samples[len(samples)-1].Procs, "process", "processes"), cpuEvery, idle, working, r.tool.Name, info.ID,
		human(cancelAt.Sub(info.Started)))
	e.fact("a %s window is busy above %.2f CPU (the idle baseline + %.2f); a verdict needs %d windows in a row",
		cpuWindow, v.Limit, cpumeter.Threshold, cpumeter.Repeats)
	e.fact("windows after the cancel (s: CPU): %s", windowsText(v.Windows))
	if r.opts.Spans != nil {
		// The server's own account, beside the meter's.
		if sp, ok := r.serverSpan(ctx, info, cancelAt.Add(spanExportLag)); ok {
			e.fact("%s", spanFact(sp, info, cancelAt))
		} else {
			e.fact("no server span of request %s's trace came to --otlp-receive", info.ID)
		}
	}
	e.time("cpuAfterCancel", v.CPUAfter)
	e.time("watched", v.Watched)
	switch {
	case v.Burning:
		res.Status = broken(res.Rule)
		e.fact("still burning %.2f CPU %s after the cancel; %.2f s CPU after the cancel: the work went on", v.Rate, human(v.Watched), v.CPUAfter.Seconds())
	case v.Quiet:
		res.Status = Pass
		e.time("quietAfter", v.QuietAfter)
		e.fact("quiet after %.2f s; %.2f s CPU after the cancel", v.QuietAfter.Seconds(), v.CPUAfter.Seconds())
		if working <= v.Limit {
			e.fact("the call burnt no more CPU than idle while it worked, so the meter shows only that nothing burns after the cancel")
		}
	default:
		res.Status, res.Reason = Skip, fmt.Sprintf("the server's CPU was too irregular after the cancel to tell (%.2f s CPU in %s): neither %d quiet nor %d busy windows in a row at the end",
			v.CPUAfter.Seconds(), human(v.Watched), cpumeter.Repeats, cpumeter.Repeats)
	}
}

// noMeter says why the server's CPU cannot be metered here, and whether
// that is a feature the run lacks (not applicable) rather than a failure.
func (r *runner) noMeter() (string, bool) {
	switch {
	case runtime.GOOS != "linux":
		return "the server's CPU time is read from /proc, which " + runtime.GOOS + " does not have", true
	case r.conn.Transport() == "http":
		return "an HTTP server's processes are not mcpoke's to see: only a stdio server mcpoke started can be metered", true
	case r.conn.ServerPID() == 0:
		return "mcpoke did not start this server as a process, so there is no process to meter", true
	}
	return "", false
}

// windowsText lists the windows as "0.00-0.25: 0.96".
func windowsText(ws []cpumeter.Window) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteString(", ")
		}
		mark := ""
		if w.Busy {
			mark = " busy"
		}
		fmt.Fprintf(&b, "%.2f-%.2f: %.2f%s", w.From.Seconds(), w.To.Seconds(), w.Rate, mark)
	}
	return b.String()
}

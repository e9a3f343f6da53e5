package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/cpumeter"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// stormReport is the cancel storm in `bench --json` (under "storm"): the
// top-level figures are then those of the same run without cancels.
type stormReport struct {
	CancelRate float64 `json:"cancelRate"`
	// CancelAt is --cancel-after: "50ms..500ms", "before-first-progress"
	// or "mid-progress".
	CancelAt string `json:"cancelAt"`
	// CancelBy is the era's cancellation: "notifications/cancelled", or
	// "stream close" (2026-07-28 over Streamable HTTP).
	CancelBy    string  `json:"cancelBy"`
	Calls       int     `json:"calls"`
	Interrupted bool    `json:"interrupted,omitempty"`
	WallMs      float64 `json:"wallMs"`
	CallsPerSec float64 `json:"callsPerSec"`
	// Completed: round trips of the calls answered with a result, of
	// which AnsweredBeforeCancel were picked but answered before it.
	Completed            stormClass `json:"completed"`
	AnsweredBeforeCancel int        `json:"answeredBeforeCancel"`
	// CancelledCleanly: nothing came after the cancel within watchMs;
	// the times are from the request to its cancel.
	CancelledCleanly stormClass `json:"cancelledCleanly"`
	// AnsweredAfterCancel: a response or error came after the cancel
	// (a late answer); the times are from the cancel to the answer.
	AnsweredAfterCancel lateClass `json:"answeredAfterCancel"`
	// ProgressAfterCancel: progress and no answer came after it; the
	// times are from the cancel to the last progress.
	ProgressAfterCancel lateClass `json:"progressAfterCancel"`
	// CancelledUnobserved: cancelled by closing the request's stream,
	// after which nothing can arrive: whether the server stopped cannot
	// be seen. Times as for cancelledCleanly.
	CancelledUnobserved stormClass `json:"cancelledUnobserved"`
	// Errors: round trips of the calls answered with an error, counted
	// by code ("isError": a tool error result; "failed": no answer, such
	// as the connection lost).
	Errors   errorClass `json:"errors"`
	TimedOut stormClass `json:"timedOut"`
	// CancelWrite: from the decision to cancel to the cancel written.
	CancelWrite latencyStats `json:"cancelWrite"`
	// CancelToQuiet: from each observable cancel to the last frame for
	// its request within watchMs; QuietAtOnce counts those followed by
	// nothing, which the histogram leaves out.
	CancelToQuiet quietStats `json:"cancelToQuiet"`
	// WireRoundTrip: pings sent every 10ms during the storm, answered at
	// once by any server: the time there and back through the queues
	// under the storm's load.
	WireRoundTrip latencyStats `json:"wireRoundTrip"`
	WatchMs       float64      `json:"watchMs"`
	// The completed calls beside the run without cancels: p50 and p99
	// ratios, and the ratio of the two throughputs.
	P50VsUncancelled        float64     `json:"p50VsUncancelled,omitempty"`
	P99VsUncancelled        float64     `json:"p99VsUncancelled,omitempty"`
	ThroughputVsUncancelled float64     `json:"throughputVsUncancelled,omitempty"`
	Health                  stormHealth `json:"health"`
	// ServerCPU is what the stdio server mcpoke started burnt, with its
	// children; absent for a server it did not start.
	ServerCPU *serverCPU `json:"serverCPU,omitempty"`
	Verdict   string     `json:"verdict"`
}

// stormClass is a class of calls: how many, and percentiles of its times.
type stormClass struct {
	Count int `json:"count"`
	latencyStats
}

func classOf(d *latencySketch) stormClass {
	return stormClass{Count: d.len(), latencyStats: d.stats()}
}

// lateClass is a class of cancelled calls the server went on about.
type lateClass struct {
	stormClass
	// MayHaveCrossed counts the answers that may have crossed their
	// cancel on the wire, sent before the cancel reached the server,
	// which is no fault: they came within the p99 round trip of the
	// pings sent during the storm (wireRoundTrip) after the cancel, and
	// no sooner after their request than the fastest uncancelled call.
	// An answer later than that came from a server that had the cancel;
	// one sooner came from a server that cut its work short for the
	// cancel and answered all the same.
	MayHaveCrossed int `json:"mayHaveCrossed,omitempty"`
	// Frames of each kind that came after the cancels.
	LateResults  int `json:"lateResults,omitempty"`
	LateErrors   int `json:"lateErrors,omitempty"`
	LateProgress int `json:"lateProgress,omitempty"`
}

type errorClass struct {
	stormClass
	ByCode map[string]int `json:"byCode"`
}

type quietStats struct {
	latencyStats
	QuietAtOnce int               `json:"quietAtOnce"`
	Histogram   []histogramBucket `json:"histogram"`
}

// stormHealth: a ping and one call after the storm.
type stormHealth struct {
	Healthy bool        `json:"healthy"`
	Ping    healthProbe `json:"ping"`
	Call    healthProbe `json:"call"`
}

type healthProbe struct {
	OK    bool    `json:"ok"`
	Ms    float64 `json:"ms"`
	Error string  `json:"error,omitempty"`
}

// serverCPU is CPU its process family burnt, from internal/cpumeter
// (the meter of check 10).
type serverCPU struct {
	// DuringStormMs: while the storm's calls ran.
	DuringStormMs float64 `json:"duringStormMs"`
	// AfterCancelsMs: in the watch after the last call ended, when the
	// server had nothing left to do: work it went on with after cancels.
	AfterCancelsMs float64 `json:"afterCancelsMs"`
	// AfterShare is AfterCancelsMs over that watch's wall time: 1.0 is a
	// core kept busy.
	AfterShare  float64 `json:"afterShare"`
	AfterOverMs float64 `json:"afterOverMs"`
	Processes   int     `json:"processes"`
	Error       string  `json:"error,omitempty"`
}

// healthTimeout bounds each health probe after the storm (and so does
// --timeout when shorter).
const healthTimeout = 5 * time.Second

// runStormReport runs the storm on srv after its uncancelled twin was
// measured (base: its report, with its wall time), watches the cancels'
// aftermath, meters the server's CPU and checks its health.
func runStormReport(ctx context.Context, srv *connect.Conn, req benchRequest, p stormPlan, base *benchReport) stormReport {
	s := srv.Session
	tally := &stormTally{}
	if base != nil {
		tally.crossFloor = time.Duration(base.MinMs * float64(time.Millisecond))
	}
	w := newStormWatcher(s, tally, p.watch)
	meter := newCPUMeter(srv.ServerPID())
	meter.mark()
	pings := startPinger(ctx, s)
	wall := runStorm(ctx, s, req, p, tally, w)
	wire := pings.stop()
	afterFrom := meter.mark()
	// Watch the last cancels for as long as the first.
	if last := w.lastSent(); !last.IsZero() {
		wait := time.NewTimer(time.Until(last.Add(p.watch)))
		select {
		case <-wait.C:
		case <-ctx.Done():
		case <-s.Done():
		}
		wait.Stop()
	}
	// The CPU watch is at least as long as the late-traffic one, so that
	// the server has time to show work it kept doing.
	if rest := p.watch - time.Since(afterFrom); rest > 0 && ctx.Err() == nil {
		select {
		case <-time.After(rest):
		case <-ctx.Done():
		case <-s.Done():
		}
	}
	meter.mark()
	w.close()

	r := stormReport{
		CancelRate: p.rate, CancelAt: p.at.String(), CancelBy: "notifications/cancelled",
		Interrupted: ctx.Err() != nil, WallMs: ms(wall), WatchMs: ms(p.watch),
	}
	if s.Era2026() && srv.Transport() == "http" {
		r.CancelBy = "stream close"
	}
	t := tally
	r.Completed = classOf(&t.completed)
	r.AnsweredBeforeCancel = t.answeredFirst
	r.CancelledCleanly = classOf(&t.clean)
	r.CancelledUnobserved = classOf(&t.notObservable)
	r.AnsweredAfterCancel = lateClass{stormClass: classOf(&t.answeredAfter), LateResults: t.lateResults, LateErrors: t.lateErrors}
	r.ProgressAfterCancel = lateClass{stormClass: classOf(&t.progressAfter), LateProgress: t.lateProgress}
	r.Errors = errorClass{stormClass: classOf(&t.errors), ByCode: t.errorsByCode}
	if r.Errors.ByCode == nil {
		r.Errors.ByCode = map[string]int{}
	}
	r.TimedOut = classOf(&t.timedOut)
	r.CancelWrite = t.write.stats()
	r.CancelToQuiet = quietOf(&t.quiet, &t.noisy)
	r.Calls = r.Completed.Count + r.Errors.Count + r.TimedOut.Count + r.CancelledCleanly.Count + r.CancelledUnobserved.Count +
		r.AnsweredAfterCancel.Count + r.ProgressAfterCancel.Count
	if wall > 0 {
		r.CallsPerSec = float64(r.Calls) / wall.Seconds()
	}
	r.WireRoundTrip = wire.stats()
	wireP99 := wire.percentile(99)
	// All of its progress within a round trip.
	r.ProgressAfterCancel.MayHaveCrossed = t.progressAfter.atMost(wireP99)
	if base != nil {
		r.AnsweredAfterCancel.MayHaveCrossed = t.crossable.atMost(wireP99)
		r.P50VsUncancelled = ratio(r.Completed.P50Ms, base.P50Ms)
		r.P99VsUncancelled = ratio(r.Completed.P99Ms, base.P99Ms)
		r.ThroughputVsUncancelled = ratio(r.CallsPerSec, base.CallsPerSec)
	}
	r.ServerCPU = meter.report(afterFrom)
	if ctx.Err() == nil {
		r.Health = checkHealth(ctx, s, req, min(healthTimeout, p.timeout))
	}
	r.Verdict = stormVerdict(&r)
	return r
}

// pinger pings the server during the storm.
type pinger struct {
	quit   chan struct{}
	done   chan struct{}
	rounds latencySketch
}

// startPinger pings s every 10ms, one ping at a time, until stop.
func startPinger(ctx context.Context, s *session.Session) *pinger {
	p := &pinger{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			t0 := time.Now()
			if mcp.Ping(ctx, s, healthTimeout) == nil {
				p.rounds.add(time.Since(t0))
			}
		}
	}()
	return p
}

// stop ends the pings and returns their round trips.
func (p *pinger) stop() *latencySketch {
	close(p.quit)
	<-p.done
	return &p.rounds
}

// quietOf summarizes cancel-to-quiet (all of it in d, the non-zero
// times in noisy); the histogram shows only the cancels something
// followed.
func quietOf(d, noisy *latencySketch) quietStats {
	return quietStats{latencyStats: d.stats(), QuietAtOnce: d.len() - noisy.len(), Histogram: sketchHistogram(noisy)}
}

// checkHealth pings the server and makes one call, each bounded.
func checkHealth(ctx context.Context, s *session.Session, req benchRequest, timeout time.Duration) stormHealth {
	probe := func(method string, params any, opts session.CallOptions) healthProbe {
		t0 := time.Now()
		opts.Timeout = timeout
		res, err := s.Do(ctx, method, params, opts)
		if method == "tools/call" {
			err = resultError(res, err)
		}
		p := healthProbe{OK: err == nil, Ms: ms(time.Since(t0))}
		if err != nil {
			p.Error = err.Error()
		}
		return p
	}
	h := stormHealth{
		Ping: probe(mcp.PingMethod(s), nil, session.CallOptions{NoProgressToken: true}),
		Call: probe("tools/call", req.params, session.CallOptions{ParamHeaders: req.headers}),
	}
	h.Healthy = h.Ping.OK && h.Call.OK
	return h
}

// cpuMeter reads the CPU of the server's process family at marks.
type cpuMeter struct {
	pid   int
	meter *cpumeter.Meter
	marks []cpumeter.Sample
	err   error
}

func newCPUMeter(pid int) *cpuMeter { return &cpuMeter{pid: pid} }

// mark takes a reading and returns when.
func (m *cpuMeter) mark() time.Time {
	if m.pid == 0 || m.err != nil {
		return time.Now()
	}
	if m.meter == nil {
		if m.meter, m.err = cpumeter.New(m.pid); m.err != nil {
			return time.Now()
		}
	}
	r, err := m.meter.Sample()
	if err != nil {
		m.err = err
		return time.Now()
	}
	m.marks = append(m.marks, r)
	return r.At
}

// report gives the CPU during the storm and after its calls ended: nil
// for a server mcpoke did not start.
func (m *cpuMeter) report(afterFrom time.Time) *serverCPU {
	if m.pid == 0 {
		return nil
	}
	if len(m.marks) < 3 {
		msg := "not measured"
		if m.err != nil {
			msg = m.err.Error()
		}
		return &serverCPU{Error: msg}
	}
	start, mid, end := m.marks[0], m.marks[1], m.marks[2]
	return &serverCPU{
		DuringStormMs:  ms(max(mid.CPU-start.CPU, 0)),
		AfterCancelsMs: ms(max(end.CPU-mid.CPU, 0)),
		AfterShare:     max(cpumeter.Rate(mid, end), 0),
		AfterOverMs:    ms(end.At.Sub(mid.At)),
		Processes:      end.Procs,
	}
}

// cpuLeakShare is the share of a core a server may burn after the storm
// before the verdict calls it work after cancels.
const cpuLeakShare = 0.05

// stormVerdict is the line a server author wants at the end.
func stormVerdict(r *stormReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s %s cancelled %s: ", percent(r.CancelRate), english.Thousands(r.Calls), plural(r.Calls, "call"), cancelWords(r.CancelAt))
	cancelled := r.CancelledCleanly.Count + r.AnsweredAfterCancel.Count + r.ProgressAfterCancel.Count + r.CancelledUnobserved.Count
	var parts []string
	switch {
	case cancelled == 0:
		parts = append(parts, "none was cancelled (all answered first)")
	case r.CancelledUnobserved.Count == cancelled:
		parts = append(parts, "answers after the cancel not observable (the cancel closes the stream)")
	default:
		a := r.AnsweredAfterCancel
		answered := fmt.Sprintf("%s answered after the cancel", english.Thousands(a.Count))
		if a.MayHaveCrossed > 0 {
			answered += fmt.Sprintf(" (%s of them may have crossed it on the wire)", english.Thousands(a.MayHaveCrossed))
		}
		parts = append(parts, answered)
		if p := r.ProgressAfterCancel; p.Count > 0 {
			progress := fmt.Sprintf("%s sent progress after it", english.Thousands(p.Count))
			if p.MayHaveCrossed > 0 {
				progress += fmt.Sprintf(" (%s of them may have crossed it)", english.Thousands(p.MayHaveCrossed))
			}
			parts = append(parts, progress)
		}
	}
	if r.P50VsUncancelled > 0 {
		parts = append(parts, fmt.Sprintf("p50 of the rest %.1f× the uncancelled run", r.P50VsUncancelled))
	}
	if n := r.TimedOut.Count; n > 0 {
		parts = append(parts, fmt.Sprintf("%s timed out", english.Thousands(n)))
	}
	if n := r.Errors.Count; n > 0 {
		parts = append(parts, fmt.Sprintf("%s failed", english.Thousands(n)))
	}
	if c := r.ServerCPU; c != nil && c.Error == "" && c.AfterShare > cpuLeakShare {
		parts = append(parts, fmt.Sprintf("server burnt %s CPU in the %s after (work after cancels)", human(c.AfterCancelsMs), human(c.AfterOverMs)))
	}
	switch {
	case r.Interrupted:
		parts = append(parts, "interrupted before the health check")
	case r.Health.Healthy:
		parts = append(parts, "healthy after")
	default:
		parts = append(parts, "UNHEALTHY after: "+unhealthyWhy(r.Health))
	}
	b.WriteString(strings.Join(parts, ", "))
	return b.String()
}

func unhealthyWhy(h stormHealth) string {
	var why []string
	if !h.Ping.OK {
		why = append(why, "ping "+shortErr(h.Ping.Error))
	}
	if !h.Call.OK {
		why = append(why, "call "+shortErr(h.Call.Error))
	}
	return strings.Join(why, "; ")
}

// shortErr says a probe's failure in a few words.
func shortErr(e string) string {
	switch {
	case strings.Contains(e, session.ErrTimedOut.Error()):
		return "timed out"
	case strings.Contains(e, session.ErrSessionClosed.Error()):
		return "failed: session closed"
	}
	return "failed: " + e
}

// cancelWords is a cancelAt as the verdict says it.
func cancelWords(at string) string {
	p, err := parseCancelPoint(at)
	if err != nil {
		return "at " + at
	}
	return p.words()
}

func percent(r float64) string {
	s := fmt.Sprintf("%.1f", r*100)
	return strings.TrimSuffix(s, ".0") + "%"
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// printStorm writes the storm's section of the text report, ending with
// its verdict.
func printStorm(w io.Writer, r *stormReport) {
	fmt.Fprintf(w, "storm       %s of %s calls cancelled %s by %s, each watched %s after its cancel\n",
		percent(r.CancelRate), english.Thousands(r.Calls), cancelWords(r.CancelAt), r.CancelBy, human(r.WatchMs))
	if r.Interrupted {
		fmt.Fprintln(w, "interrupted: the figures are for the calls made until then")
	}
	row := func(label string, c stormClass, what, extra string) {
		if c.Count == 0 {
			fmt.Fprintf(w, "  %-21s %7d%s\n", label, 0, extra)
			return
		}
		fmt.Fprintf(w, "  %-21s %7d  %s p50 %s  p90 %s  p99 %s  max %s%s\n", label, c.Count, what,
			human(c.P50Ms), human(c.P90Ms), human(c.P99Ms), human(c.MaxMs), extra)
	}
	first := ""
	if r.AnsweredBeforeCancel > 0 {
		first = fmt.Sprintf("  (%d answered before their cancel)", r.AnsweredBeforeCancel)
	}
	row("completed", r.Completed, "round trip", first)
	if r.CancelledUnobserved.Count > 0 {
		row("cancelled, unobserved", r.CancelledUnobserved, "cancel at", "  (the stream closed: nothing after it can arrive)")
	}
	row("cancelled cleanly", r.CancelledCleanly, "cancel at", "")
	row("answered anyway", r.AnsweredAfterCancel.stormClass, "after cancel",
		lateExtra(r.AnsweredAfterCancel.LateResults, "late result", r.AnsweredAfterCancel.LateErrors, "late error")+crossed(r.AnsweredAfterCancel.MayHaveCrossed))
	row("progress after", r.ProgressAfterCancel.stormClass, "after cancel", lateExtra(r.ProgressAfterCancel.LateProgress, "progress notification", 0, "")+crossed(r.ProgressAfterCancel.MayHaveCrossed))
	codes := ""
	if len(r.Errors.ByCode) > 0 {
		var by []string
		for _, c := range slices.Sorted(maps.Keys(r.Errors.ByCode)) {
			by = append(by, fmt.Sprintf("%s: %d", c, r.Errors.ByCode[c]))
		}
		codes = "  (" + strings.Join(by, ", ") + ")"
	}
	row("errors", r.Errors.stormClass, "round trip", codes)
	row("timed out", r.TimedOut, "round trip", "")
	fmt.Fprintf(w, "  throughput %.0f calls/s", r.CallsPerSec)
	if r.ThroughputVsUncancelled > 0 {
		fmt.Fprintf(w, " (%.2f× the uncancelled run); completed p50 %.2f×, p99 %.2f× the uncancelled run", r.ThroughputVsUncancelled, r.P50VsUncancelled, r.P99VsUncancelled)
	}
	fmt.Fprintln(w)
	if observed := r.CancelledCleanly.Count + r.AnsweredAfterCancel.Count + r.ProgressAfterCancel.Count; observed > 0 {
		fmt.Fprintf(w, "  cancel written in p50 %s, max %s; cancel to quiet p50 %s  p99 %s  max %s (%d quiet at once)\n",
			human(r.CancelWrite.P50Ms), human(r.CancelWrite.MaxMs), human(r.CancelToQuiet.P50Ms), human(r.CancelToQuiet.P99Ms),
			human(r.CancelToQuiet.MaxMs), r.CancelToQuiet.QuietAtOnce)
	} else if r.CancelWrite.MaxMs > 0 {
		fmt.Fprintf(w, "  cancel written in p50 %s, max %s\n", human(r.CancelWrite.P50Ms), human(r.CancelWrite.MaxMs))
	}
	if len(r.CancelToQuiet.Histogram) > 0 {
		var b strings.Builder
		printHistogram(&b, r.CancelToQuiet.Histogram)
		fmt.Fprint(w, strings.Replace(b.String(), "histogram  ", "to quiet   ", 1))
	}
	if c := r.ServerCPU; c != nil {
		if c.Error != "" {
			fmt.Fprintf(w, "  server CPU not measured: %s\n", c.Error)
		} else {
			fmt.Fprintf(w, "  server CPU %s during the storm; %s in the %s after it (%.0f%% of a core), %s\n", human(c.DuringStormMs),
				human(c.AfterCancelsMs), human(c.AfterOverMs), c.AfterShare*100, processes(c.Processes))
		}
	}
	if !r.Interrupted {
		fmt.Fprintf(w, "  health after: ping %s, call %s\n", probeWords(r.Health.Ping), probeWords(r.Health.Call))
	}
	fmt.Fprintf(w, "verdict     %s\n", r.Verdict)
}

// crossed notes the late answers that may have crossed their cancel.
func crossed(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("  %d may have crossed the cancel on the wire", n)
}

func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}

func lateExtra(a int, an string, b int, bn string) string {
	var s []string
	if a > 0 {
		s = append(s, english.Plural(a, an))
	}
	if b > 0 {
		s = append(s, english.Plural(b, bn))
	}
	if len(s) == 0 {
		return ""
	}
	return "  (" + strings.Join(s, ", ") + ")"
}

func probeWords(p healthProbe) string {
	if p.OK {
		return "ok in " + human(p.Ms)
	}
	return shortErr(p.Error) + " after " + human(p.Ms)
}

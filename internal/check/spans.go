package check

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// SpanSource is where the server's spans come in (*otlprecv.Receiver,
// from check --otlp-receive).
type SpanSource interface {
	// WaitTrace waits until spans of traceID came and quiet passed
	// without more, or ctx ended, and returns those kept.
	WaitTrace(ctx context.Context, traceID string, quiet time.Duration) []otlprecv.Span
}

const (
	// spanStopWithin is how soon after the cancel a server span must end
	// for its work to count as stopped "as soon as practical".
	spanStopWithin = time.Second
	// spanExportLag is how long after a span ends the server may take to
	// export it: the SDK's batch processor sends every 5 s by default.
	spanExportLag = 6 * time.Second
	// spanQuiet is how long no batch must come before the spans of a
	// trace are taken as all there are.
	spanQuiet = 300 * time.Millisecond
)

// serverSpan waits for the server's span of the cancelled request in
// info: the child of the request's own span, else the trace's span that
// ended last. ok is false when none came by the deadline.
func (r *runner) serverSpan(ctx context.Context, info session.RequestInfo, until time.Time) (otlprecv.Span, bool) {
	if r.opts.Spans == nil || info.TraceParent.IsZero() {
		return otlprecv.Span{}, false
	}
	ctx, cancel := context.WithDeadline(ctx, until)
	defer cancel()
	own := info.TraceParent.String()[36:52]
	var best otlprecv.Span
	found := false
	for _, sp := range r.opts.Spans.WaitTrace(ctx, info.TraceParent.TraceIDString(), spanQuiet) {
		if sp.SpanID == own {
			continue // mcpoke's own, exported to itself
		}
		child, bestChild := sp.ParentSpanID == own, found && best.ParentSpanID == own
		if !found || child && !bestChild || child == bestChild && sp.End.After(best.End) {
			best, found = sp, true
		}
	}
	return best, found
}

// spanFact says what the server's span shows, citing it.
func spanFact(sp otlprecv.Span, info session.RequestInfo, cancelAt time.Time) string {
	name := termtext.Line(sp.Name)
	if sp.Service != "" {
		name += " [" + termtext.Line(sp.Service) + "]"
	}
	rel := "a span of the request's trace"
	if sp.ParentSpanID == info.TraceParent.String()[36:52] {
		rel = "a child of the request's span"
	}
	d := sp.End.Sub(cancelAt)
	var when string
	switch otlprecv.EndingOf(sp.End, cancelAt) {
	case otlprecv.EndedAt:
		sign := "+"
		if d < 0 {
			sign = ""
		}
		when = fmt.Sprintf("ended at the cancel (%s%s)", sign, human(d))
	case otlprecv.EndedBefore:
		when = fmt.Sprintf("ended %s before the cancel", human(-d))
	default:
		when = fmt.Sprintf("ended %s after the cancel", human(d))
	}
	status := ""
	if sp.Status != "" {
		status = ", status " + termtext.Line(sp.Status)
		if sp.StatusMessage != "" {
			status += ": " + termtext.Line(sp.StatusMessage)
		}
	}
	return fmt.Sprintf("server span %s (trace %s, span %s, %s; received on --otlp-receive): ran %s, %s%s",
		name, termtext.Line(sp.TraceID), termtext.Line(sp.SpanID), rel, human(sp.End.Sub(sp.Start)), when, status)
}

// stopsWorkBySpans is check 10 where the server's CPU cannot be read (a
// server over HTTP) but its spans come in: the span of the cancelled
// call's work, and when it ended, is the evidence. A span that ends long
// after the cancel is work that went on.
func (r *runner) stopsWorkBySpans(ctx context.Context, res *Result, noCPU string) {
	e := &res.Evidence
	e.fact("evidence: the server's own spans (OTLP), not its CPU: %s", noCPU)
	_, ref, skip := r.startCall(ctx, "it could be cancelled")
	if skip != "" {
		res.Status, res.Reason = Skip, skip
		return
	}
	r.sleep(ctx, cpuWorking) // at work for a while, as when the CPU is read
	if ref.Cancel(cancelReason) != nil {
		info, _ := ref.Info()
		res.Status, res.Reason = Skip, fmt.Sprintf("the call ended %s before it could be cancelled", info.State)
		return
	}
	info, _ := ref.Info()
	cancelAt := info.LateFrom()
	watch := max(r.opts.Listen, cpuAfterMin)
	sp, ok := r.serverSpan(ctx, info, cancelAt.Add(watch+spanExportLag))
	if !ok {
		res.Status, res.Reason = Skip, fmt.Sprintf("no server span of request %s's trace came within %s of the cancel: the server exports none to --otlp-receive, "+
			"or its work is still running (a span is exported once it ends)", info.ID, human(watch+spanExportLag))
		return
	}
	e.fact("request %s (%s) cancelled %s into the call", info.ID, r.tool.Name, human(cancelAt.Sub(info.Started)))
	e.fact("%s", spanFact(sp, info, cancelAt))
	after := sp.End.Sub(cancelAt)
	e.time("spanEndAfterCancel", after)
	switch {
	case otlprecv.EndingOf(sp.End, cancelAt) == otlprecv.EndedBefore:
		res.Status, res.Reason = Skip, fmt.Sprintf("the server's span ended %s before the cancel: its work was over, so there was nothing to stop", human(-after))
	case after <= spanStopWithin:
		res.Status = Pass
		e.fact("the work stopped %s after the cancel (within %s)", human(after), spanStopWithin)
	default:
		res.Status = broken(res.Rule)
		e.fact("the work went on %s after the cancel (more than %s)", human(after), spanStopWithin)
	}
}

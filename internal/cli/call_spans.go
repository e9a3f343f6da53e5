package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// serverSpanWait bounds the wait for the server's spans after the call:
// a server exports them in batches, the last at its exit.
const serverSpanWait = 3 * time.Second

// serverSpanQuiet is how long no new batch must come before the spans
// of the request are taken as all there are.
const serverSpanQuiet = 300 * time.Millisecond

// reportSpan is a span received from the server (or a gateway) that
// shares the request's trace id. Times are from when the request was sent.
type reportSpan struct {
	Name    string  `json:"name"`
	Service string  `json:"service,omitempty"`
	SpanID  string  `json:"spanId"`
	Parent  string  `json:"parentSpanId,omitempty"`
	StartMs float64 `json:"startMs"`
	EndMs   float64 `json:"endMs"`
	// EndAfterCancelMs is how long after the cancel was written the span
	// ended: near 0 when the work stopped at the cancel.
	EndAfterCancelMs *float64 `json:"endAfterCancelMs,omitempty"`
	Status           string   `json:"status,omitempty"`
	StatusMessage    string   `json:"statusMessage,omitempty"`
	Events           []string `json:"events,omitempty"`
	// ChildOfRequest: its parent is the span in the request's traceparent.
	ChildOfRequest bool `json:"childOfRequest"`
}

// collectServerSpans waits for the spans of the request's trace and puts
// them in the report.
func collectServerSpans(ctx context.Context, recv *otlprecv.Receiver, info session.RequestInfo, rep *callReport) {
	if recv == nil || info.TraceParent.IsZero() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, serverSpanWait)
	defer cancel()
	spans := recv.WaitTrace(ctx, info.TraceParent.TraceIDString(), serverSpanQuiet)
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start.Before(spans[j].Start) })
	parent := info.TraceParent.String()[36:52]
	rep.ServerSpans = []reportSpan{}
	for _, sp := range spans {
		if sp.SpanID == parent { // mcpoke's own span, exported to itself
			continue
		}
		rs := reportSpan{Name: sp.Name, Service: sp.Service, SpanID: sp.SpanID, Parent: sp.ParentSpanID,
			StartMs: ms(sp.Start.Sub(info.Started)), EndMs: ms(sp.End.Sub(info.Started)),
			Status: sp.Status, StatusMessage: sp.StatusMessage, ChildOfRequest: sp.ParentSpanID == parent}
		if !info.CancelSentAt.IsZero() && !sp.End.IsZero() {
			d := ms(sp.End.Sub(info.CancelSentAt))
			rs.EndAfterCancelMs = &d
		}
		for _, ev := range sp.Events {
			rs.Events = append(rs.Events, ev.Name)
		}
		rep.ServerSpans = append(rep.ServerSpans, rs)
	}
}

// printServerSpans is the report's "server spans" section.
func printServerSpans(w io.Writer, r *callReport) {
	if r.ServerSpans == nil {
		return
	}
	if len(r.ServerSpans) == 0 {
		fmt.Fprintf(w, "%-9s %s\n", "spans", "none received for trace "+r.TraceID)
		return
	}
	fmt.Fprintf(w, "server spans (trace %s)\n", r.TraceID)
	for _, s := range r.ServerSpans {
		where := ""
		if s.EndAfterCancelMs != nil {
			d := *s.EndAfterCancelMs
			switch otlprecv.EndingOf(time.Unix(0, int64(d*1e6)), time.Unix(0, 0)) {
			case otlprecv.EndedAt:
				where = fmt.Sprintf(", ended at the cancel (%+.3gms)", d)
			case otlprecv.EndedBefore:
				where = fmt.Sprintf(", ended %s before the cancel", human(-d))
			default:
				where = fmt.Sprintf(", ended %s after the cancel", human(d))
			}
		}
		svc := ""
		if s.Service != "" {
			svc = " [" + termtext.Line(s.Service) + "]"
		}
		status := ""
		if s.Status != "" {
			status = " · " + termtext.Line(s.Status)
			if s.StatusMessage != "" {
				status += ": " + termtext.Line(s.StatusMessage)
			}
		}
		fmt.Fprintf(w, "  %s%s  %s → %s%s%s\n", termtext.Line(s.Name), svc, human(s.StartMs), human(s.EndMs), where, status)
		for _, ev := range s.Events {
			fmt.Fprintf(w, "    event %s\n", termtext.Line(ev))
		}
	}
}

package otelspan

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpoke/mcpoke/session"
)

// maxHeld bounds the cancelled and timed-out spans kept open for late
// traffic; past it the oldest is ended.
const maxHeld = 1000

// SessionInfo is what the spans say of the connection.
type SessionInfo struct {
	// Transport is network.transport: "pipe" for stdio, "tcp" for HTTP.
	Transport string
	// SessionID, if set, gives mcp.session.id (Streamable HTTP's).
	SessionID func() string
}

// open is a request's span while it is being recorded.
type open struct {
	span trace.Span
	// A run of progress notifications becomes one event, as the
	// timeline draws a run as one mark: first, count, last value.
	runFirst time.Time
	runCount int
	runLast  float64
	total    int
	reason   string
	// lastAt is the latest moment the span saw, its end when held.
	lastAt time.Time
	held   bool
	ended  time.Time
}

// Watch records every request of s that carries a traceparent as a
// client span, until s closes: it returns at once, and done is closed
// when the last span was ended.
func (e *Exporter) Watch(s *session.Session, info SessionInfo) (done <-chan struct{}) {
	sub := s.Subscribe()
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		w := watcher{e: e, s: s, info: info, spans: map[uint64]*open{}}
		for ev := range sub.C {
			w.on(ev)
		}
		w.endAll()
	}()
	return ch
}

type watcher struct {
	e     *Exporter
	s     *session.Session
	info  SessionInfo
	spans map[uint64]*open
	held  []uint64
}

func (w *watcher) on(ev session.Event) {
	switch ev := ev.(type) {
	case session.RequestStarted:
		w.start(ev.Info)
	case session.ProgressUpdated:
		if o := w.spans[ev.Ref.Seq]; o != nil {
			if o.runCount == 0 {
				o.runFirst = ev.Progress.At
			}
			o.runCount++
			o.total++
			o.runLast = ev.Progress.Progress
			o.lastAt = ev.Progress.At
		}
	case session.StateChanged:
		w.state(ev)
	case session.CancelSent:
		if o := w.spans[ev.Ref.Seq]; o != nil {
			w.flushRun(o)
			attrs := []attribute.KeyValue{attribute.String("mcpoke.cancel.form", cancelForm(ev.Wire)),
				attribute.String("mcpoke.cancel.reason", o.reason)}
			if ev.Err != nil {
				attrs = append(attrs, attribute.String("mcpoke.cancel.error", ev.Err.Error()))
			}
			o.span.AddEvent("cancel sent", trace.WithTimestamp(ev.At), trace.WithAttributes(attrs...))
			o.lastAt = later(o.lastAt, ev.At)
		}
	case session.LateArrived:
		if o := w.spans[ev.Ref.Seq]; o != nil {
			w.flushRun(o)
			o.span.AddEvent("late "+ev.Late.Kind.String(), trace.WithTimestamp(ev.Late.At),
				trace.WithAttributes(attribute.Int64("mcpoke.late.after_cancel_ms", ev.Late.AfterCancel.Milliseconds())))
			o.lastAt = later(o.lastAt, ev.Late.At)
		}
	}
}

func (w *watcher) start(info session.RequestInfo) {
	if info.Incoming || info.TraceParent.IsZero() {
		return
	}
	name, attrs := spanName(info)
	attrs = append(attrs, attribute.String("jsonrpc.request.id", info.ID.String()))
	if w.info.Transport != "" {
		attrs = append(attrs, attribute.String("network.transport", w.info.Transport))
	}
	if w.info.SessionID != nil {
		if id := w.info.SessionID(); id != "" {
			attrs = append(attrs, attribute.String("mcp.session.id", id))
		}
	}
	ctx := WithIDs(context.Background(), *info.TraceParent)
	_, span := w.e.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(info.Started), trace.WithAttributes(attrs...))
	w.spans[info.Seq] = &open{span: span, lastAt: info.Started}
}

// spanName is "{mcp.method.name} {target}", the target being the tool or
// prompt name when there is one, with the attributes that name them.
func spanName(info session.RequestInfo) (string, []attribute.KeyValue) {
	attrs := []attribute.KeyValue{attribute.String("mcp.method.name", info.Method)}
	switch info.Method {
	case "tools/call":
		attrs = append(attrs, attribute.String("gen_ai.operation.name", "execute_tool"))
		if info.Tool != "" {
			return info.Method + " " + info.Tool, append(attrs, attribute.String("gen_ai.tool.name", info.Tool))
		}
	case "prompts/get":
		if name := stringMember(info.Params, "name"); name != "" {
			return info.Method + " " + name, append(attrs, attribute.String("gen_ai.prompt.name", name))
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if uri := stringMember(info.Params, "uri"); uri != "" {
			attrs = append(attrs, attribute.String("mcp.resource.uri", uri))
		}
	}
	return info.Method, attrs
}

func (w *watcher) state(ev session.StateChanged) {
	o := w.spans[ev.Ref.Seq]
	if o == nil {
		return
	}
	switch ev.To {
	case session.Cancelling:
		o.reason = ev.Reason
	case session.Completed, session.Failed:
		w.end(o, ev.Ref, ev.At)
	case session.TimedOut, session.Cancelled:
		w.flushRun(o)
		if ev.To == session.TimedOut {
			o.span.AddEvent("timeout", trace.WithTimestamp(ev.At), trace.WithAttributes(attribute.String("mcpoke.reason", ev.Reason)))
		}
		// Held open: what the server sends after the cancel is its story.
		errType := "cancelled"
		if ev.To == session.TimedOut {
			errType = "timeout"
		}
		o.span.SetAttributes(attribute.String("error.type", errType))
		o.span.SetStatus(codes.Error, ev.Reason)
		o.ended = ev.At
		o.lastAt = later(o.lastAt, ev.At)
		if !o.held {
			o.held = true
			w.held = append(w.held, ev.Ref.Seq)
			if len(w.held) > maxHeld {
				w.close(w.held[0])
				w.held = w.held[1:]
			}
		}
	}
}

// end ends a span that got an answer (or failed without one), with
// error.type as the conventions give it: the JSON-RPC error code, or
// tool_error for a tool result with isError.
func (w *watcher) end(o *open, ref session.Ref, at time.Time) {
	w.flushRun(o)
	info, _ := w.s.Request(ref).Info()
	switch {
	case info.Error != nil:
		code := strconv.FormatInt(info.Error.Code, 10)
		o.span.SetAttributes(attribute.String("error.type", code), attribute.String("rpc.response.status_code", code))
		o.span.SetStatus(codes.Error, info.Error.Message)
	case info.State == session.Failed:
		o.span.SetAttributes(attribute.String("error.type", "failed"))
		o.span.SetStatus(codes.Error, info.Failure)
	case info.Method == "tools/call" && isToolError(info.Result):
		o.span.SetAttributes(attribute.String("error.type", "tool_error"))
		o.span.SetStatus(codes.Error, "the tool's result has isError")
	}
	o.span.SetAttributes(attribute.Int("mcpoke.progress.count", o.total))
	o.span.End(trace.WithTimestamp(at))
	delete(w.spans, ref.Seq)
}

func isToolError(result json.RawMessage) bool {
	return string(bytes.TrimSpace(session.Member(result, "isError"))) == "true"
}

func stringMember(obj json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(session.Member(obj, key), &s)
	return s
}

// close ends a held span at the last thing it saw.
func (w *watcher) close(seq uint64) {
	o := w.spans[seq]
	if o == nil {
		return
	}
	w.flushRun(o)
	o.span.SetAttributes(attribute.Int("mcpoke.progress.count", o.total))
	o.span.End(trace.WithTimestamp(later(o.ended, o.lastAt)))
	delete(w.spans, seq)
}

func (w *watcher) endAll() {
	for seq, o := range w.spans {
		if !o.held {
			o.span.SetStatus(codes.Error, "the session ended before the request did")
			o.span.SetAttributes(attribute.String("error.type", "session_closed"))
		}
		w.close(seq)
	}
}

func (w *watcher) flushRun(o *open) {
	if o.runCount == 0 {
		return
	}
	o.span.AddEvent("progress", trace.WithTimestamp(o.runFirst), trace.WithAttributes(
		attribute.Int("mcpoke.progress.count", o.runCount), attribute.Float64("mcpoke.progress.last", o.runLast)))
	o.runCount = 0
}

// cancelForm says how the cancellation went on the wire.
func cancelForm(w session.CancelWire) string {
	switch {
	case w.Notified && w.StreamClosed:
		return "notifications/cancelled and stream closed"
	case w.StreamClosed:
		return "stream closed"
	default:
		return "notifications/cancelled"
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

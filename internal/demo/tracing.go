package demo

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpoke/mcpoke/session"
)

// tracer, when set (Instrument), makes a server span of every request
// the demo handles.
var tracer atomic.Pointer[trace.Tracer]

// Instrument makes the demo servers started from now on export a server
// span per handled request to t, continuing the trace of the request's
// _meta traceparent, and ending when the work stops: at its answer, or
// at the cancel that stopped it. demo-server calls it when
// OTEL_EXPORTER_OTLP_ENDPOINT is set.
func Instrument(t trace.Tracer) { tracer.Store(&t) }

// traced wraps every handler in a span when the demo is instrumented;
// otherwise it leaves them as they are, at no cost.
func traced(handlers map[string]session.Handler) map[string]session.Handler {
	t := tracer.Load()
	if t == nil {
		return handlers
	}
	for method, h := range handlers {
		handlers[method] = tracedHandler(*t, method, h)
	}
	return handlers
}

func tracedHandler(t trace.Tracer, method string, h session.Handler) session.Handler {
	return func(ctx context.Context, in *session.Incoming) (any, error) {
		var meta struct {
			Meta struct {
				TraceParent string `json:"traceparent"`
			} `json:"_meta"`
			Name string `json:"name"`
		}
		_ = json.Unmarshal(in.Params, &meta)
		sctx := ctx
		// A malformed traceparent starts a new trace, as W3C says.
		if tp, sampled, ok := session.ParseTraceParent(meta.Meta.TraceParent); ok {
			cfg := trace.SpanContextConfig{TraceID: tp.TraceID, SpanID: tp.SpanID, Remote: true}
			if sampled {
				cfg.TraceFlags = trace.FlagsSampled
			}
			sctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(cfg))
		}
		name := method
		attrs := []attribute.KeyValue{attribute.String("mcp.method.name", method), attribute.String("jsonrpc.request.id", in.ID.String())}
		if method == "tools/call" && meta.Name != "" {
			name += " " + meta.Name
			attrs = append(attrs, attribute.String("gen_ai.tool.name", meta.Name))
		}
		sctx, span := t.Start(sctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		res, err := h(sctx, in)
		switch {
		case ctx.Err() != nil:
			span.AddEvent("work stopped: " + context.Cause(ctx).Error())
			span.SetAttributes(attribute.String("error.type", "cancelled"))
			span.SetStatus(codes.Error, "cancelled")
		case err != nil:
			span.SetAttributes(attribute.String("error.type", "_OTHER"))
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
		return res, err
	}
}

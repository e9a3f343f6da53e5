// Package otelspan exports mcpoke's own requests as OpenTelemetry client
// spans over OTLP/HTTP, named and attributed as the OpenTelemetry
// semantic conventions for MCP say. Each span's context is the W3C
// traceparent the session put in the request's _meta (session.Config.Trace),
// so a server that continues the trace hangs its spans under it.
//
// Nothing here runs unless tracing was asked for: without an Exporter no
// SDK object exists, and the session's only cost is one bool test.
package otelspan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpoke/mcpoke/session"
)

// DefaultFlush bounds how long Close waits for the last spans to reach
// the collector: with no backend reachable, exit is late by at most this.
const DefaultFlush = 2 * time.Second

// Options configure an Exporter.
type Options struct {
	// Endpoint is an OTLP/HTTP URL (http://host:4318, or with the path
	// /v1/traces); "" takes OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
	// OTEL_EXPORTER_OTLP_ENDPOINT, as the SDK reads them, with the other
	// OTEL_EXPORTER_OTLP_* settings (headers, timeout, compression).
	Endpoint string
	// ServiceName is service.name; OTEL_SERVICE_NAME overrides it.
	ServiceName string
	// Flush bounds Close; default DefaultFlush.
	Flush time.Duration
}

// Exporter sends spans to an OTLP/HTTP collector.
type Exporter struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	flush  time.Duration
}

// New builds the exporter. It does not connect: the first batch does.
func New(o Options) (*Exporter, error) {
	if o.Flush <= 0 {
		o.Flush = DefaultFlush
	}
	if o.ServiceName == "" {
		o.ServiceName = "mcpoke"
	}
	// No retries: a missing collector must cost a failed post, not a
	// backoff loop that holds exit.
	opts := []otlptracehttp.Option{otlptracehttp.WithTimeout(o.Flush), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false})}
	if o.Endpoint != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(tracesURL(o.Endpoint)))
	}
	quietErrors()
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.New(context.Background(),
		resource.WithAttributes(attribute.String("service.name", o.ServiceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		return nil, fmt.Errorf("OTLP resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)),
		sdktrace.WithResource(res), sdktrace.WithIDGenerator(givenIDs{}), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	return &Exporter{tp: tp, tracer: tp.Tracer("github.com/mcpoke/mcpoke"), flush: o.Flush}, nil
}

// tracesURL adds /v1/traces to a bare collector URL, as the SDK does for
// OTEL_EXPORTER_OTLP_ENDPOINT (WithEndpointURL takes the URL as is).
func tracesURL(u string) string {
	for _, suffix := range []string{"/v1/traces", "/v1/traces/"} {
		if len(u) >= len(suffix) && u[len(u)-len(suffix):] == suffix {
			return u
		}
	}
	for len(u) > 0 && u[len(u)-1] == '/' {
		u = u[:len(u)-1]
	}
	return u + "/v1/traces"
}

// Close sends what is left and stops, waiting at most the flush time.
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), e.flush)
	defer cancel()
	err := e.tp.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("OTLP export: the collector took longer than %s; spans not sent were dropped", e.flush)
	}
	return err
}

// Tracer is the exporter's tracer, for spans of the caller's own (the
// demo server's).
func (e *Exporter) Tracer() trace.Tracer { return e.tracer }

// idsKey carries the ids a span must have: the session chose them and
// sent them in the request's traceparent before the span existed.
type idsKey struct{}

// WithIDs makes the next span started with ctx take tp's trace and span
// id, when tp is set.
func WithIDs(ctx context.Context, tp session.TraceParent) context.Context {
	return context.WithValue(ctx, idsKey{}, tp)
}

// givenIDs is the SDK's IDGenerator: the ids in the context when there
// are some (WithIDs), else random ones.
type givenIDs struct{}

func (givenIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if tp, ok := ctx.Value(idsKey{}).(session.TraceParent); ok && !tp.IsZero() {
		return tp.TraceID, tp.SpanID
	}
	fresh := session.NewTraceParent()
	return fresh.TraceID, fresh.SpanID
}

func (givenIDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if tp, ok := ctx.Value(idsKey{}).(session.TraceParent); ok && !tp.IsZero() {
		return tp.SpanID
	}
	return session.NewTraceParent().SpanID
}

// quietErrors makes the SDK's export errors one line on stderr, once: a
// missing collector must not flood the terminal of a call.
func quietErrors() {
	var once sync.Once
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		once.Do(func() { fmt.Fprintf(os.Stderr, "mcpoke: OTLP export failed (spans are dropped): %v\n", err) })
	}))
}

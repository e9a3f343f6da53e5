package proxy

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// TestSpansOfHTTPHostSessions: over HTTP each host session has its own
// ids and progress tokens, a host of 2026-07-28 cancels by closing the
// request's stream, and the kill switch cancels for the host; each is
// its own span with its own outcome.
func TestSpansOfHTTPHostSessions(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	s := NewSpans(tp.Tracer("test"), "tcp")
	t0 := time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	feed := func(ms int, sess string, dir wire.Direction, frame string) {
		s.Observe(wire.Record{At: at(ms), Dir: dir, Kind: wire.KindFrame, Data: []byte(frame), Session: sess})
	}
	relay := func(ms int, sess, event string) {
		s.Observe(wire.Record{At: at(ms), Dir: wire.Out, Kind: wire.KindRelay, Data: []byte(event), Session: sess})
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","_meta":{"progressToken":"p"}}}`
	feed(0, "s1", wire.Out, call)
	feed(10, "s2", wire.Out, call)
	feed(100, "s2", wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`)
	feed(200, "s1", wire.In, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	relay(300, "s2", EventStreamClosed+"1")
	// Nothing can come late on a closed stream: that span ends at once
	// (a proxy over HTTP outlives its hosts, and a span is exported once
	// it ends).
	if ended := mem.GetSpans(); len(ended) != 2 || attr(ended[1], "mcpoke.proxy.host_session") != "s2" {
		t.Fatalf("after s2 closed its stream, %d spans ended, want s1's answered and s2's closed: %v", len(ended), ended)
	}
	feed(400, "s1", wire.Out, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spin"}}`)
	relay(500, "s1", EventProxyCancelled+"2")
	relay(510, "s1", EventProxySentServer+`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	feed(600, "s2", wire.Out, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	relay(700, "", EventHostClosed)
	s.Close()

	got := map[string]tracetest.SpanStub{}
	for _, sp := range mem.GetSpans() {
		got[fmt.Sprintf("%s#%s", attr(sp, "mcpoke.proxy.host_session"), attr(sp, "jsonrpc.request.id"))] = sp
	}
	if len(got) != 4 {
		t.Fatalf("%d spans, want 4 (s1#1, s2#1, s1#2, s2#3): %v", len(got), got)
	}
	if sp := got["s1#1"]; attr(sp, "error.type") != "" || !sp.EndTime.Equal(at(200)) || attr(sp, "mcpoke.progress.count") != "0" {
		t.Errorf("s1's answered call: error.type %q, ended %v, progress %s", attr(sp, "error.type"), sp.EndTime.Sub(t0), attr(sp, "mcpoke.progress.count"))
	}
	s2 := got["s2#1"]
	if attr(s2, "error.type") != "cancelled" || s2.Status.Description != ReasonStream || attr(s2, "mcpoke.progress.count") != "1" || !s2.EndTime.Equal(at(300)) {
		t.Errorf("s2's call, its stream closed: error.type %q, status %q, progress %s, ended %v",
			attr(s2, "error.type"), s2.Status.Description, attr(s2, "mcpoke.progress.count"), s2.EndTime.Sub(t0))
	}
	if len(s2.Events) != 2 || s2.Events[1].Name != "cancel sent" || eventAttr(s2.Events[1], "mcpoke.cancel.form") != "stream closed" {
		t.Errorf("s2's call's events: %+v", s2.Events)
	}
	if sp := got["s1#2"]; attr(sp, "error.type") != "cancelled" || sp.Status.Description != ReasonProxyKilled {
		t.Errorf("the killed call: error.type %q, status %q", attr(sp, "error.type"), sp.Status.Description)
	}
	if sp := got["s2#3"]; attr(sp, "error.type") != "session_closed" || sp.Status.Description != ReasonHostGone || !sp.EndTime.Equal(at(700)) {
		t.Errorf("pending when the host went: error.type %q, status %q, ended %v", attr(sp, "error.type"), sp.Status.Description, sp.EndTime.Sub(t0))
	}
}

// TestCancelledSpanEndsAfterLateWatch: a span cancelled by a
// notification stays open for a late answer, and ends at its cancel
// once lateWatch passed without one, proxy still running.
func TestCancelledSpanEndsAfterLateWatch(t *testing.T) {
	mem := &signalingExporter{InMemoryExporter: tracetest.NewInMemoryExporter(), exported: make(chan struct{}, 1)}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	s := NewSpans(tp.Tracer("test"), "tcp")
	s.lateWatch = 50 * time.Millisecond
	t0 := time.Now()
	callThenCancel(s, t0)
	if n := len(mem.GetSpans()); n != 0 {
		t.Fatalf("%d spans ended at the cancel; want it open for a late answer", n)
	}
	select {
	case <-mem.exported:
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled span did not end within 5s of its 50ms late watch")
	}
	if sp := mem.GetSpans()[0]; attr(sp, "error.type") != "cancelled" || sp.Status.Description != "enough" || !sp.EndTime.Equal(t0.Add(time.Millisecond)) {
		t.Errorf("error.type %q, status %q, ended %v after the start", attr(sp, "error.type"), sp.Status.Description, sp.EndTime.Sub(t0))
	}
	s.Close()
}

// A host that cancels by notification and then closes the request's
// stream (the TypeScript SDK v2 client over 2025-11-25 HTTP does both)
// leaves nothing to watch for: the span ends at the close, not a late
// watch later.
func TestCancelThenClosedStreamEndsTheSpanAtTheClose(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	s := NewSpans(tp.Tracer("test"), "tcp")
	t0 := time.Now()
	callThenCancel(s, t0)
	s.Observe(wire.Record{At: t0.Add(2 * time.Millisecond), Dir: wire.Out, Kind: wire.KindRelay, Session: "s1", Data: []byte(EventStreamClosed + "1")})
	spans := mem.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans ended at the closed stream; want the cancelled one, at once", len(spans))
	}
	if sp := spans[0]; sp.Status.Description != "enough" || !sp.EndTime.Equal(t0.Add(2*time.Millisecond)) {
		t.Errorf("status %q (the host's cancel's reason), ended %v after the start, want 2ms (the close)", sp.Status.Description, sp.EndTime.Sub(t0))
	}
	s.Close()
}

// callThenCancel feeds s host session s1's tools/call 1 at t0 and its
// notifications/cancelled ("enough") 1ms later.
func callThenCancel(s *Spans, t0 time.Time) {
	s.Observe(wire.Record{At: t0, Dir: wire.Out, Kind: wire.KindFrame, Session: "s1", Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"spin"}}`)})
	s.Observe(wire.Record{At: t0.Add(time.Millisecond), Dir: wire.Out, Kind: wire.KindFrame, Session: "s1",
		Data: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"enough"}}`)})
}

// TestSpansEndAtServerExit: a server that exits leaves the host's
// pending requests unanswered; their spans end there, saying so.
func TestSpansEndAtServerExit(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	s := NewSpans(tp.Tracer("test"), "pipe")
	t0 := time.Now()
	s.Observe(wire.Record{At: t0, Dir: wire.Out, Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
	s.Observe(wire.Record{At: t0.Add(time.Second), Dir: wire.In, Kind: wire.KindRelay, Data: []byte("the server exited (exit status 1)")})
	spans := mem.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans ended at the server's exit, want 1", len(spans))
	}
	if sp := spans[0]; attr(sp, "error.type") != "session_closed" || sp.Status.Description != ReasonServerGone+": the server exited (exit status 1)" ||
		!sp.EndTime.Equal(t0.Add(time.Second)) {
		t.Errorf("error.type %q, status %q, ended %v", attr(sp, "error.type"), sp.Status.Description, sp.EndTime.Sub(t0))
	}
	s.Close()
}

// signalingExporter says when it exported spans.
type signalingExporter struct {
	*tracetest.InMemoryExporter
	exported chan struct{}
}

func (e *signalingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.InMemoryExporter.ExportSpans(ctx, spans)
	select {
	case e.exported <- struct{}{}:
	default:
	}
	return err
}

func eventAttr(ev sdktrace.Event, key string) string {
	for _, kv := range ev.Attributes {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

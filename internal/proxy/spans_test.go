package proxy

import (
	"fmt"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// TestSpansOfHostRequests feeds the exporter a host's traffic: a call
// with a traceparent that is cancelled and answered late, one answered
// with an error, one with a tool error, one with a malformed
// traceparent, and one still pending at the end.
func TestSpansOfHostRequests(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	s := NewSpans(tp.Tracer("test"), "pipe")
	t0 := time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	feed := func(ms int, dir wire.Direction, frame string) {
		s.Observe(wire.Record{At: at(ms), Dir: dir, Kind: wire.KindFrame, Data: []byte(frame)})
	}
	const host = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	feed(0, wire.Out, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","_meta":{"progressToken":"p1","traceparent":"`+host+`"}}}`)
	feed(100, wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}`)
	feed(200, wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":2}}`)
	feed(300, wire.Out, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	feed(900, wire.In, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	feed(1000, wire.Out, `[{"jsonrpc":"2.0","id":"a","method":"resources/read","params":{"uri":"file:///x"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fail"}}]`)
	feed(1010, wire.In, `{"jsonrpc":"2.0","id":"a","error":{"code":-32002,"message":"no such resource"}}`)
	feed(1020, wire.In, `{"jsonrpc":"2.0","id":2,"result":{"isError":true,"content":[]}}`)
	feed(1100, wire.Out, `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"traceparent":"00-zz-\u001b[2J-01"}}}`)
	feed(1200, wire.In, `{"jsonrpc":"2.0","id":3,"result":{}}`)
	feed(1300, wire.Out, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep"}}`)
	s.Close()
	feed(1400, wire.Out, `{"jsonrpc":"2.0","id":5,"method":"ping"}`) // after Close: nothing

	byName := map[string]tracetest.SpanStub{}
	for _, sp := range mem.GetSpans() {
		byName[fmt.Sprintf("%s#%s", sp.Name, attr(sp, "jsonrpc.request.id"))] = sp
	}
	if len(byName) != 5 {
		t.Fatalf("%d spans, want 5: %v", len(byName), byName)
	}
	sleep := byName["tools/call sleep#1"]
	if got := sleep.SpanContext.TraceID().String(); got != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("the cancelled call's span is in trace %s, not the host's", got)
	}
	if got := sleep.Parent.SpanID().String(); got != "b7ad6b7169203331" {
		t.Errorf("its parent is %s, not the host's span", got)
	}
	var events []string
	for _, ev := range sleep.Events {
		events = append(events, fmt.Sprintf("%s@%d", ev.Name, ev.Time.Sub(t0).Milliseconds()))
	}
	if got := fmt.Sprint(events); got != "[progress@100 cancel sent@300 late response@900]" {
		t.Errorf("events %s", got)
	}
	if attr(sleep, "error.type") != "cancelled" || sleep.Status.Description != "user" || attr(sleep, "mcpoke.progress.count") != "2" ||
		!sleep.EndTime.Equal(at(900)) || attr(sleep, "gen_ai.tool.name") != "sleep" || attr(sleep, "network.transport") != "pipe" {
		t.Errorf("cancelled call's span: %+v", sleep)
	}
	if sp := byName["resources/read#\"a\""]; attr(sp, "error.type") != "-32002" || attr(sp, "mcp.resource.uri") != "file:///x" {
		t.Errorf("resources/read span: %+v", sp)
	}
	if sp := byName["tools/call fail#2"]; attr(sp, "error.type") != "tool_error" {
		t.Errorf("tool error span: %+v", sp)
	}
	if sp := byName["ping#3"]; sp.Parent.IsValid() || !sp.SpanContext.TraceID().IsValid() {
		t.Errorf("a malformed traceparent must start a new trace: parent %v", sp.Parent)
	}
	if sp := byName["tools/call sleep#4"]; attr(sp, "error.type") != "session_closed" {
		t.Errorf("pending at Close: %+v", sp)
	}
}

// TestSpansBounded: a host that never gets answers cannot make the
// exporter hold more than maxSpansOpen spans, nor its list of ids grow
// with the answered ones.
func TestSpansBounded(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	s := NewSpans(tp.Tracer("test"), "tcp")
	now := time.Now()
	for i := range maxSpansOpen + 10 {
		s.Observe(wire.Record{At: now, Dir: wire.Out, Kind: wire.KindFrame, Data: fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)})
	}
	if len(s.open) > maxSpansOpen || len(mem.GetSpans()) != 10 {
		t.Errorf("%d open, %d ended; want at most %d open, the 10 oldest ended", len(s.open), len(mem.GetSpans()), maxSpansOpen)
	}
	for i := range 5 * maxSpansOpen {
		id := maxSpansOpen + 10 + i
		s.Observe(wire.Record{At: now, Dir: wire.Out, Kind: wire.KindFrame, Data: fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)})
		s.Observe(wire.Record{At: now, Dir: wire.In, Kind: wire.KindFrame, Data: fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{}}`, id)})
	}
	if len(s.order) > 2*len(s.open)+64 {
		t.Errorf("%d ids remembered for %d open spans", len(s.order), len(s.open))
	}
}

func attr(sp tracetest.SpanStub, key string) string {
	for _, kv := range sp.Attributes {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

package otelspan_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/otelspan"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// TestCancelledCallSpanReadBack: a tools/call to the demo's sleep,
// cancelled after some progress, is exported over real OTLP/HTTP to
// mcpoke's own receiver, and read back: one client span with the
// traceparent's ids, named and attributed per the MCP conventions, its
// progress collapsed into one event, the cancel event with its form and
// reason, and an error status of error.type cancelled.
func TestCancelledCallSpanReadBack(t *testing.T) {
	recv, err := otlprecv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	exp, err := otelspan.New(otelspan.Options{Endpoint: recv.Endpoint(), Flush: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a, b := transporttest.Pipe()
	srv := demo.NewSession(b, io.Discard)
	defer srv.Close()
	s := session.New(a, session.Config{Trace: true, SettleWindow: -1})
	done := exp.Watch(s, otelspan.SessionInfo{Transport: "pipe"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Initialize(ctx, session.InitializeOptions{ClientInfo: session.Implementation{Name: "t", Version: "1"}}); err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	c, err := s.Call(ctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"seconds":5,"steps":50}}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	progress := 0
	for progress < 3 {
		select {
		case ev := <-sub.C:
			if _, ok := ev.(session.ProgressUpdated); ok {
				progress++
			}
		case <-ctx.Done():
			t.Fatalf("no 3 progress notifications within the deadline (saw %d)", progress)
		}
	}
	if err := s.Request(c.Ref()).Cancel("test cancels"); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := c.Result(); st != session.Cancelled {
		t.Fatalf("state %s, want cancelled", st)
	}
	info, _ := s.Request(c.Ref()).Info()
	s.Close()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the span watcher did not end within the deadline after the session closed")
	}
	if err := exp.Close(); err != nil {
		t.Fatal(err)
	}
	spans := recv.Trace(info.TraceParent.TraceIDString())
	if len(spans) != 1 {
		t.Fatalf("got %d spans for trace %s, want 1: %+v", len(spans), info.TraceParent.TraceIDString(), spans)
	}
	sp := spans[0]
	wantID := info.TraceParent.String()[36:52]
	if sp.SpanID != wantID || sp.ParentSpanID != "" {
		t.Errorf("span id %s parent %q, want %s (the traceparent's) and no parent", sp.SpanID, sp.ParentSpanID, wantID)
	}
	if sp.Name != "tools/call sleep" || sp.Service != "mcpoke" {
		t.Errorf("span %q of service %q, want \"tools/call sleep\" of mcpoke", sp.Name, sp.Service)
	}
	for k, v := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "sleep", "jsonrpc.request.id": info.ID.String(),
		"error.type": "cancelled", "network.transport": "pipe"} {
		if sp.Attributes[k] != v {
			t.Errorf("attribute %s = %q, want %q (all: %v)", k, sp.Attributes[k], v, sp.Attributes)
		}
	}
	if sp.Status != "error" || sp.StatusMessage != "test cancels" {
		t.Errorf("status %q %q, want error \"test cancels\"", sp.Status, sp.StatusMessage)
	}
	var names []string
	for _, ev := range sp.Events {
		names = append(names, ev.Name)
	}
	if len(names) != 2 || names[0] != "progress" || names[1] != "cancel sent" {
		t.Fatalf("events %v, want [progress, cancel sent]", names)
	}
	if sp.End.Before(sp.Events[1].At) || !sp.Start.Equal(info.Started) && sp.Start.Sub(info.Started).Abs() > time.Millisecond {
		t.Errorf("span %v–%v does not hold its cancel at %v", sp.Start, sp.End, sp.Events[1].At)
	}
}

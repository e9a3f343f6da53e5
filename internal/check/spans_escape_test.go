package check

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/session"
)

// TestSpanFactEscapesSpanText: a span's name, service, status, message
// and ids come from whoever posted to the receiver; check 10's report
// cites them escaped.
func TestSpanFactEscapesSpanText(t *testing.T) {
	tp := session.NewTraceParent()
	cancelAt := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	sp := otlprecv.Span{
		TraceID: "ab\x1b[2J", SpanID: "cd\u202e", ParentSpanID: tp.String()[36:52],
		Name: "tools/call \x1b]0;pwned\x07sleep", Service: "demo\x9b31m",
		Start: cancelAt.Add(-time.Second), End: cancelAt.Add(2 * time.Millisecond),
		Status: "error\x1b[5m", StatusMessage: "stopped\r\nFAKE PASS\x1b]52;c;aGk=\x07",
	}
	fact := spanFact(sp, session.RequestInfo{TraceParent: &tp}, cancelAt)
	for _, raw := range []string{"\x1b", "\x07", "\u202e", "\x9b", "\r", "\n"} {
		if strings.Contains(fact, raw) {
			t.Fatalf("raw %q in check's fact:\n%q", raw, fact)
		}
	}
	for _, want := range []string{"a child of the request's span", "ended at the cancel", `tools/call \x1b]0;pwned\x07sleep`} {
		if !strings.Contains(fact, want) {
			t.Errorf("the fact lacks %q:\n%s", want, fact)
		}
	}
}

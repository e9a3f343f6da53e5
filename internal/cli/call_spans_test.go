package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestServerSpansEscaped: what a span carries (name, service, status,
// events) never reaches the terminal raw.
func TestServerSpansEscaped(t *testing.T) {
	end := 1.5
	r := &callReport{TraceID: "ab", ServerSpans: []reportSpan{{Name: "x\x1b]0;pwned\x07", Service: "s\u202e", StartMs: 1, EndMs: 2,
		EndAfterCancelMs: &end, Status: "error", StatusMessage: "m\x1b[2J", Events: []string{"e\x9b31m"}}}}
	var b bytes.Buffer
	printServerSpans(&b, r)
	out := b.String()
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\x9b"} {
		if strings.Contains(out, bad) {
			t.Fatalf("raw %q reached the output:\n%q", bad, out)
		}
	}
	if !strings.Contains(out, "ended at the cancel") {
		t.Fatalf("a span ending 1.5ms after the cancel is at it:\n%s", out)
	}
}

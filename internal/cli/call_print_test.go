package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// A long run of progress shows its first and last few and says how many
// it skipped between them; a notification without a number says so.
func TestProgressListSaysWhatItSkips(t *testing.T) {
	var ps []reportProgress
	for i := 1; i <= 10000; i++ {
		v := float64(i)
		ps = append(ps, reportProgress{Progress: &v, AtMs: float64(i)})
	}
	ps[9999] = reportProgress{Flag: session.ViolationProgressMissing, AtMs: 10000}
	var b bytes.Buffer
	printProgressList(&b, ps, len(ps))
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 5 + 1 + 5:\n%s", len(lines), b.String())
	}
	if !strings.HasSuffix(lines[4], "  5") || !strings.Contains(lines[5], "… 9990 not shown between") ||
		!strings.HasSuffix(lines[6], "  9996") || !strings.HasSuffix(lines[10], "no value (progress_missing)") {
		t.Errorf("progress list:\n%s", b.String())
	}
	b.Reset()
	printProgressList(&b, ps[:10], 10)
	if n := strings.Count(b.String(), "\n"); n != 10 || strings.Contains(b.String(), "not shown") {
		t.Errorf("a run of 10 is shown whole:\n%s", b.String())
	}
}

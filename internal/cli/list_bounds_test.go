package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// A server that pages through a million resources, or through pages of
// 30 MB, gets at most what mcpoke keeps of a list: the list is cut, the
// warning and --json say where, and the exit status is 1.
func TestListKeepsBoundedEntries(t *testing.T) {
	for _, mode := range []string{"manyresources", "hugepages"} {
		t.Run(mode, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := runResources(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, mode), "", true, testTimeouts)
			if code := exitStatus(err); code != ExitFailed {
				t.Errorf("exit %d (%v), want 1: the list is not whole", code, err)
			}
			var got struct {
				Resources  []json.RawMessage `json:"resources"`
				Incomplete string            `json:"incomplete"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("--json: %v", err)
			}
			kept := 0
			for _, r := range got.Resources {
				kept += len(r)
			}
			if len(got.Resources) > mcp.DefaultMaxEntries || kept > mcp.DefaultMaxBytes {
				t.Errorf("kept %d resources (%d bytes); want at most %d and %d bytes", len(got.Resources), kept, mcp.DefaultMaxEntries, mcp.DefaultMaxBytes)
			}
			if !strings.Contains(got.Incomplete, "longer than mcpoke keeps") || !strings.Contains(got.Incomplete, "from page") {
				t.Errorf("--json incomplete %q; want it to say the list was cut, and where", got.Incomplete)
			}
			if !strings.Contains(errOut.String(), "warning: resources/list: the list is longer than mcpoke keeps") {
				t.Errorf("stderr lacks the warning:\n%s", errOut.String())
			}
		})
	}
}

// BenchmarkListPeakRSS lists against the servers of
// TestListKeepsBoundedEntries and reports this process's peak RSS
// (VmHWM). Run it alone, so that the peak is its own:
//
//	go test ./internal/cli -run '^$' -bench 'ListPeakRSS/manyresources' -benchtime 1x
func BenchmarkListPeakRSS(b *testing.B) {
	for _, mode := range []string{"manyresources", "hugepages"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				var out, errOut bytes.Buffer
				_ = runResources(testContext(b), &out, &errOut, testGlobals(), misbehavingSpec(b, mode), "", true, testTimeouts)
			}
			b.ReportMetric(peakRSSMB(b), "peakRSS-MB")
		})
	}
}

// peakRSSMB is this process's peak resident set (VmHWM), in MB.
func peakRSSMB(tb testing.TB) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	tb.Skip("no VmHWM in /proc/self/status")
	return 0
}

// BenchmarkHugeInitializePeakRSS lists the tools of a server whose
// initialize result is 30 MB (instructions and capabilities) and reports
// the peak RSS. Run it alone:
//
//	go test ./internal/cli -run '^$' -bench HugeInitializePeakRSS -benchtime 1x
func BenchmarkHugeInitializePeakRSS(b *testing.B) {
	for range b.N {
		var out, errOut bytes.Buffer
		_ = runTools(testContext(b), &out, &errOut, testGlobals(), misbehavingSpec(b, "hugeinit"), "", true, testTimeouts)
	}
	b.ReportMetric(peakRSSMB(b), "peakRSS-MB")
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

// BenchmarkListPeakRSS lists (--json) against the servers of
// TestListKeepsBoundedEntries and reports the peak RSS (VmHWM) of a
// fresh process for each:
//
//	go test ./internal/cli -run '^$' -bench ListPeakRSS -benchtime 1x
func BenchmarkListPeakRSS(b *testing.B) {
	for _, mode := range []string{"manyresources", "hugepages"} {
		b.Run(mode, func(b *testing.B) { benchPeakRSS(b, "list-"+mode) })
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
// the peak RSS of a fresh process:
//
//	go test ./internal/cli -run '^$' -bench HugeInitializePeakRSS -benchtime 1x
func BenchmarkHugeInitializePeakRSS(b *testing.B) { benchPeakRSS(b, "hugeinit") }

// syncBuffer is a bytes.Buffer written by one goroutine and read by
// another; seen is closed once it holds want.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	if s.seen != nil && strings.Contains(s.b.String(), s.want) {
		close(s.seen)
		s.seen = nil
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A list of many pages is printed as its pages come: the first page of a
// server that never sends the second is on the screen while mcpoke
// waits for it.
func TestListPrintsEachPageAsItComes(t *testing.T) {
	seen := make(chan struct{}) // read here, not through out: Write sets out.seen to nil
	out := &syncBuffer{want: "demo://r/0/0 — r0", seen: seen}
	var errOut bytes.Buffer
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- runResources(ctx, out, &errOut, testGlobals(), misbehavingSpec(t, "stallpages"), "", false, timeoutFlags{timeout: time.Minute})
	}()
	select {
	case <-seen:
	case err := <-done:
		t.Fatalf("the list ended (%v) before its first page was printed:\n%.500s", err, out.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("the first page was not printed within 20 s while the second was awaited:\n%.500s", out.String())
	}
	if !strings.HasPrefix(out.String(), "misbehaving-stallpages 0: resources, page by page\n") {
		t.Errorf("head:\n%.300s", out.String())
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the list did not end within 10 s of its context")
	}
}

// In text, a list cut at the cap was printed page by page up to the cap,
// ends with its count, and still warns and exits 1.
func TestListStreamedKeepsTheCap(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runResources(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "manyresources"), "", false, testTimeouts)
	if code := exitStatus(err); code != ExitFailed {
		t.Errorf("exit %d (%v), want 1: the list is not whole", code, err)
	}
	text := out.String()
	if n := strings.Count(text, "\ndemo://r/"); n != mcp.DefaultMaxEntries {
		t.Errorf("printed %d resources, want the %d kept", n, mcp.DefaultMaxEntries)
	}
	if !strings.HasSuffix(text, "\n50000 resources in 6 pages, 0 templates\n") {
		t.Errorf("tail:\n%s", text[max(0, len(text)-300):])
	}
	if !strings.Contains(errOut.String(), "warning: resources/list: the list is longer than mcpoke keeps") {
		t.Errorf("stderr lacks the warning:\n%s", errOut.String())
	}
}

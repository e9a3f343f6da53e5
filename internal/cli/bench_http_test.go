package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
)

// TestBenchOverHTTPSaysSo runs bench against the demo server over
// Streamable HTTP and legacy HTTP+SSE: HTTP figures read next to stdio's
// would mislead, so the header and the JSON name the transport.
func TestBenchOverHTTPSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &buffertest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- serveDemoHTTP(ctx, stderr, demoServerFlags{http: "127.0.0.1:0", sse: "127.0.0.1:0"}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serveDemoHTTP did not return after its context ended")
		}
	})
	urls := regexp.MustCompile(`Streamable HTTP at (http://\S+/mcp)\n(?s:.*)HTTP\+SSE at (http://\S+/sse)\n`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no URLs on stderr: %q", stderr.String())
		}
		m = urls.FindStringSubmatch(stderr.String())
	}
	for _, c := range []struct{ url, transport, header string }{
		{m[1], "http", ", over Streamable HTTP): 20 calls, concurrency 2, client on " + english.Plural(benchCPUs(0, 2), "CPU") + "\n"},
		{m[2], "sse", ", over legacy HTTP+SSE): 20 calls, concurrency 2, client on " + english.Plural(benchCPUs(0, 2), "CPU") + "\n"},
	} {
		t.Run(c.transport, func(t *testing.T) {
			spec := connect.URLSpec(c.url)
			spec.Transport = c.transport
			var out, errOut bytes.Buffer
			f := &benchFlags{tool: "echo", n: 20, concurrency: 2, cancelProbes: 2, watch: 100 * time.Millisecond}
			if err := runBench(testContext(t), &out, &errOut, testGlobals(), spec, f); err != nil {
				t.Fatalf("bench: %v\n%s", err, errOut.String())
			}
			first, _, _ := strings.Cut(out.String(), "\n")
			if !strings.HasPrefix(first, "bench echo on mcpoke-demo ") || !strings.HasSuffix(first+"\n", c.header) {
				t.Errorf("header %q, want one ending in %q", first, c.header)
			}
			if !strings.Contains(out.String(), "calls/s, 0 errors") {
				t.Errorf("bench over %s:\n%s", c.transport, out.String())
			}
			out.Reset()
			f.json = true
			if err := runBench(testContext(t), &out, &errOut, testGlobals(), spec, f); err != nil {
				t.Fatalf("bench --json: %v\n%s", err, errOut.String())
			}
			var got struct {
				Transport string
				Calls     int
				Errors    int
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Transport != c.transport || got.Calls != 20 || got.Errors != 0 {
				t.Errorf("bench --json: %v, %+v", err, got)
			}
		})
	}
}

package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkEchoVersusSDK runs `mcpoke bench` and the TypeScript reference
// SDK's client (testdata/bench/sdk_echo_bench.mjs) against the reference
// server's echo, one after the other in one run, and reports both round
// trips side by side. Run with -benchtime 1x: each iteration is 2000 calls
// per client.
func BenchmarkEchoVersusSDK(b *testing.B) {
	everything := referenceServer()
	if everything == "" {
		b.Skip("reference server not installed; see .ci/run")
	}
	bin := buildMcpoke(b)
	server := []string{"--", "node", everything, "stdio"}
	args := []string{"--args", `{"message":"hi"}`, "-n", "2000"}
	var ours, theirs benchFigures
	for b.Loop() {
		ours = runBench(b, bin, append(append([]string{"bench", "--json"}, args...), server...)...)
		theirs = runBench(b, "node", append(append([]string{filepath.Join("testdata", "bench", "sdk_echo_bench.mjs")}, args...), server...)...)
	}
	reportVersus(b, ours, theirs)
}

// BenchmarkEchoVersusSDKOverHTTP is BenchmarkEchoVersusSDK over Streamable
// HTTP: `mcpoke bench --url`, the TypeScript SDK's
// StreamableHTTPClientTransport and the Go SDK's StreamableClientTransport
// (testdata/peers/gosdk/bench, when it builds), one after the other,
// against the demo server (`mcpoke demo-server --http`) and the reference
// server (`node server-everything streamableHttp`). Run with -benchtime
// 1x: each iteration is 2000 calls per client per server.
func BenchmarkEchoVersusSDKOverHTTP(b *testing.B) {
	sdk := filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(sdk); err != nil {
		b.Skipf("the TypeScript SDK is not installed in %s (.ci/run installs it)", peersDir())
	}
	bin := buildMcpoke(b)
	gosdk := buildGoSDKBench(b)
	servers := []struct {
		name, args string
		start      func(b *testing.B) string
		// goSDKArgs: the Go SDK v1.8.0 client does not mirror echo's
		// x-mcp-header parameter (a MUST in 2026-07-28, which the demo
		// speaks), so its bench client adds that header itself.
		goSDKArgs []string
	}{
		{"demo", `{"text":"hi"}`, func(b *testing.B) string {
			url, _ := startDemoServer(b, bin, "--http")
			return url
		}, []string{"-header", "Mcp-Param-Text=hi"}},
		{"everything", `{"message":"hi"}`, startReferenceHTTP, nil},
	}
	for _, srv := range servers {
		b.Run(srv.name, func(b *testing.B) {
			url := srv.start(b)
			// No cancel probes: the SDK client makes none, and their
			// watch would only add a second per run.
			args := []string{"--args", srv.args, "-n", "2000"}
			var ours, theirs, goSDK benchFigures
			for b.Loop() {
				ours = runBench(b, bin, append([]string{"bench", "--json", "--cancel-probes", "0", "--transport", "http", "--url", url}, args...)...)
				theirs = runBench(b, "node", append([]string{filepath.Join("testdata", "bench", "sdk_echo_bench.mjs"), "--url", url}, args...)...)
				if gosdk != "" {
					goSDK = runBench(b, gosdk, append([]string{"-url", url, "-args", srv.args, "-n", "2000"}, srv.goSDKArgs...)...)
				}
			}
			reportVersus(b, ours, theirs)
			if gosdk != "" {
				b.ReportMetric(goSDK.P50Ms, "gosdk-p50-ms")
				b.ReportMetric(goSDK.P99Ms, "gosdk-p99-ms")
				b.ReportMetric(goSDK.CallsPerSec, "gosdk-calls/s")
			}
		})
	}
}

// startReferenceHTTP runs server-everything over Streamable HTTP on a free
// port and returns its URL. It listens on every interface; the benchmark
// only ever connects to 127.0.0.1.
func startReferenceHTTP(b *testing.B) string {
	everything := referenceServer()
	if everything == "" {
		b.Skip("reference server not installed; see .ci/run")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command("node", everything, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
			c.Close()
			return "http://127.0.0.1:" + port + "/mcp"
		}
		if time.Now().After(deadline) {
			b.Fatalf("the reference server does not listen on 127.0.0.1:%s after 30s", port)
		}
	}
}

// buildGoSDKBench builds testdata/peers/gosdk/bench, the Go SDK's client
// making bench's calls, or returns "" when it cannot be built here.
func buildGoSDKBench(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "gosdk-bench")
	cmd := exec.Command("go", "build", "-o", bin, "./bench")
	cmd.Dir = filepath.Join("testdata", "peers", "gosdk")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Logf("the Go SDK's bench client does not build, left out: %v\n%s", err, out)
		return ""
	}
	return bin
}

// reportVersus reports both clients' figures side by side.
func reportVersus(b *testing.B, ours, theirs benchFigures) {
	b.ReportMetric(ours.P50Ms, "mcpoke-p50-ms")
	b.ReportMetric(theirs.P50Ms, "sdk-p50-ms")
	b.ReportMetric(ours.P99Ms, "mcpoke-p99-ms")
	b.ReportMetric(theirs.P99Ms, "sdk-p99-ms")
	b.ReportMetric(ours.CallsPerSec, "mcpoke-calls/s")
	b.ReportMetric(theirs.CallsPerSec, "sdk-calls/s")
}

type benchFigures struct {
	P50Ms       float64 `json:"p50Ms"`
	P99Ms       float64 `json:"p99Ms"`
	CallsPerSec float64 `json:"callsPerSec"`
}

func runBench(b *testing.B, name string, args ...string) benchFigures {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "MCPOKE_PEERS_DIR="+peersDir())
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	var f benchFigures
	if err := json.Unmarshal(out, &f); err != nil {
		b.Fatalf("%s printed %q: %v", name, out, err)
	}
	return f
}

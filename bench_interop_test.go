package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
	bin := filepath.Join(b.TempDir(), "mcpoke")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	server := []string{"--", "node", everything, "stdio"}
	args := []string{"--args", `{"message":"hi"}`, "-n", "2000"}
	var ours, theirs benchFigures
	for b.Loop() {
		ours = runBench(b, bin, append(append([]string{"bench", "--json"}, args...), server...)...)
		theirs = runBench(b, "node", append(append([]string{filepath.Join("testdata", "bench", "sdk_echo_bench.mjs")}, args...), server...)...)
	}
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

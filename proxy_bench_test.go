package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkProxyVersusDirect runs `mcpoke bench` on the demo's echo
// directly, through `mcpoke proxy`, and through the least a relay can do
// (testdata/floorrelay: copy bytes both ways, record nothing), taking
// turns, in one run, at concurrency 1 and 64, and reports the proxy's
// and the floor's p50 and calls/s as ratios to the direct ones (medians
// over the rounds), and the proxy's as ratios to the floor's: what the
// proxy adds to the least any relay process costs. Run with -benchtime
// 1x: each iteration is 5 rounds of 10,000 calls per side.
func BenchmarkProxyVersusDirect(b *testing.B) {
	bin := buildMcpoke(b)
	floor := filepath.Join(b.TempDir(), "floorrelay")
	if out, err := exec.Command("go", "build", "-o", floor, "./testdata/floorrelay").CombinedOutput(); err != nil {
		b.Fatalf("go build floorrelay: %v\n%s", err, out)
	}
	for _, conc := range []int{1, 64} {
		b.Run("concurrency="+strconv.Itoa(conc), func(b *testing.B) {
			args := []string{"bench", "--json", "-n", "10000", "--cancel-probes", "0", "--concurrency", strconv.Itoa(conc), "--"}
			var p50, cps, floorP50, floorCPS, overFloorP50, overFloorCPS []float64
			var direct, proxied, relayed benchFigures
			for b.Loop() {
				for range 5 {
					direct = runBench(b, bin, append(args, bin, "demo-server")...)
					proxied = runBench(b, bin, append(args, bin, "proxy", "--", bin, "demo-server")...)
					relayed = runBench(b, bin, append(args, floor, bin, "demo-server")...)
					p50 = append(p50, proxied.P50Ms/direct.P50Ms)
					cps = append(cps, proxied.CallsPerSec/direct.CallsPerSec)
					floorP50 = append(floorP50, relayed.P50Ms/direct.P50Ms)
					floorCPS = append(floorCPS, relayed.CallsPerSec/direct.CallsPerSec)
					overFloorP50 = append(overFloorP50, proxied.P50Ms/relayed.P50Ms)
					overFloorCPS = append(overFloorCPS, proxied.CallsPerSec/relayed.CallsPerSec)
				}
			}
			b.ReportMetric(median(p50), "p50-ratio")
			b.ReportMetric(median(cps), "calls/s-ratio")
			b.ReportMetric(median(floorP50), "floor-p50-ratio")
			b.ReportMetric(median(floorCPS), "floor-calls/s-ratio")
			// What the proxy adds to the least any relay costs: the part
			// of the ratios above that its records and relay are.
			b.ReportMetric(median(overFloorP50), "p50-over-floor")
			b.ReportMetric(median(overFloorCPS), "calls/s-over-floor")
			b.ReportMetric(direct.P50Ms, "direct-p50-ms")
			b.ReportMetric(proxied.P50Ms, "proxy-p50-ms")
			b.ReportMetric(relayed.P50Ms, "floor-p50-ms")
			b.ReportMetric(direct.CallsPerSec, "direct-calls/s")
			b.ReportMetric(proxied.CallsPerSec, "proxy-calls/s")
			b.ReportMetric(relayed.CallsPerSec, "floor-calls/s")
		})
	}
}

// BenchmarkProxyProgressFlood passes 1,000,000 progress notifications
// from the demo's flood tool through `mcpoke proxy --transcript`, this
// test as the host, and reports the proxy's peak RSS (VmHWM).
func BenchmarkProxyProgressFlood(b *testing.B) {
	bin := buildMcpoke(b)
	for b.Loop() {
		cmd := exec.Command(bin, "proxy", "--transcript", filepath.Join(b.TempDir(), "flood.ndjson"), "--", bin, "demo-server")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`+"\n")
		io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{"count":1000000},"_meta":{"progressToken":"f"}}}`+"\n")
		br := bufio.NewReaderSize(out, 1<<16)
		progress := 0
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				b.Fatalf("the proxy's output ended after %d progress notifications: %v", progress, err)
			}
			if bytes.Contains(line, []byte(`"notifications/progress"`)) {
				progress++
			} else if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":2,`)) {
				break
			}
		}
		took := time.Since(start)
		hwm := peakRSS(b, cmd.Process.Pid)
		in.Close()
		io.Copy(io.Discard, out)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("proxy: %v", err)
		}
		if progress != 1_000_000 {
			b.Fatalf("%d progress notifications reached the host, want 1000000", progress)
		}
		b.ReportMetric(float64(hwm)/(1<<20), "proxy-peak-RSS-MiB")
		b.ReportMetric(float64(progress)/took.Seconds(), "notifications/s")
	}
}

// buildMcpoke builds this module's mcpoke into a temporary directory.
func buildMcpoke(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "mcpoke")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// peakRSS reads a process's VmHWM, in bytes.
func peakRSS(b *testing.B, pid int) int {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(st), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb << 10
		}
	}
	b.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

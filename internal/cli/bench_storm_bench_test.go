package cli

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// Targets (issue 32): at concurrency 64 with 30% of the calls cancelled,
// mcpoke's throughput is at least 0.8× the same run without cancels; its
// memory stays flat however many calls the storm makes. Both are
// measured on the demo in this process, over the in-memory pipe, so that
// what shows is mcpoke's cost and not a process's or a pipe's.

// stormDemo is the demo in this process, initialized in protocol
// 2025-11-25, as bench connects (no settle window).
func stormDemo(b *testing.B) *session.Session {
	a, c := transporttest.Pipe()
	srv := demo.NewSession(c, io.Discard)
	conn := connect.Attach(connect.Spec{Name: "demo-mem"}, a, connect.Options{Protocol: "2025-11-25", Session: session.Config{SettleWindow: -1}})
	b.Cleanup(func() { conn.Close(); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx); err != nil {
		b.Fatal(err)
	}
	return conn.Session
}

var stormEcho = benchRequest{params: json.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`)}

// BenchmarkStormThroughput runs, per iteration, 5,000 calls of echo at
// concurrency 64 on the demo over stdio (this test binary as
// `mcpoke demo-server`, a process of its own) without cancels, then the
// same with 30% cancelled as soon as written (before-first-progress:
// every pick is cancelled, the most work a cancel makes), and reports
// both throughputs, their ratio (target ≥ 0.8), and the CPU mcpoke's
// side spent per call in each.
func BenchmarkStormThroughput(b *testing.B) {
	spec := hostileSpec(b)
	spec.Name, spec.Env = "demo", []string{hostileServerEnv + "=demo"}
	ctx := context.Background()
	srv, err := openServer(ctx, testGlobals(), spec, serverOptions{protocol: "2025-11-25", session: session.Config{SettleWindow: -1}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	s := srv.Session
	plan := stormPlan{calls: 5000, concurrency: 64, timeout: 30 * time.Second, at: cancelPoint{kind: cancelBeforeFirstProgress}}
	var baseWall, stormWall, baseCPU, stormCPU time.Duration
	var baseCalls, stormCalls, cancelled int
	uncancelled := func() {
		t := &stormTally{}
		c0 := selfCPU(b)
		baseWall += runStorm(ctx, s, stormEcho, plan, t, nil)
		baseCPU += selfCPU(b) - c0
		baseCalls += t.completed.len()
	}
	storm := func() {
		p := plan
		p.rate = 0.3
		t := &stormTally{}
		c0 := selfCPU(b)
		w := newStormWatcher(s, t, 0)
		stormWall += runStorm(ctx, s, stormEcho, p, t, w)
		w.close()
		stormCPU += selfCPU(b) - c0
		stormCalls += t.completed.len() + t.cancelledCount()
		cancelled += t.cancelledCount()
		if n := t.errors.len() + t.timedOut.len(); n > 0 {
			b.Fatalf("%d calls failed in the storm: %v", n, t.errorsByCode)
		}
	}
	// Which goes first alternates, so that neither always pays for the
	// other's garbage.
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			uncancelled()
			storm()
		} else {
			storm()
			uncancelled()
		}
	}
	base := float64(baseCalls) / baseWall.Seconds()
	withCancels := float64(stormCalls) / stormWall.Seconds()
	b.ReportMetric(base, "uncancelled-calls/s")
	b.ReportMetric(withCancels, "storm-calls/s")
	b.ReportMetric(withCancels/base, "ratio")
	b.ReportMetric(float64(cancelled)/float64(stormCalls), "cancelled-share")
	b.ReportMetric(float64(baseCPU.Microseconds())/float64(baseCalls), "uncancelled-client-µs/call")
	b.ReportMetric(float64(stormCPU.Microseconds())/float64(stormCalls), "storm-client-µs/call")
}

// selfCPU is the CPU this process has used, user and system.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStormMemory runs one storm of 1,000,000 echo calls at
// concurrency 64, 30% cancelled before their first progress, in two
// stretches, and reports the heap after 200,000 calls and after 1,000,000
// (after a GC, the storm's tally alive): the session's table and the
// watcher forget finished calls, and the tally's samples go into
// sketches of fixed size, so the two should be within noise.
func BenchmarkStormMemory(b *testing.B) {
	for b.Loop() {
		s := stormDemo(b)
		ctx := context.Background()
		t := &stormTally{}
		w := newStormWatcher(s, t, 10*time.Millisecond)
		p := stormPlan{calls: 200_000, concurrency: 64, rate: 0.3, timeout: 30 * time.Second, at: cancelPoint{kind: cancelBeforeFirstProgress}}
		heap := func() float64 {
			time.Sleep(100 * time.Millisecond) // the watcher files the last cancels
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return float64(m.HeapAlloc)
		}
		runStorm(ctx, s, stormEcho, p, t, w)
		h1 := heap()
		p.calls = 800_000
		runStorm(ctx, s, stormEcho, p, t, w)
		h2 := heap()
		w.close()
		b.ReportMetric(h1/(1<<20), "heap-MB-after-200k")
		b.ReportMetric(h2/(1<<20), "heap-MB-after-1M")
		b.ReportMetric((h2-h1)/800_000, "heap-B/call-growth")
		runtime.KeepAlive(t)
	}
}

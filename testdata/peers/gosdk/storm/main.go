// Command storm is the official Go SDK's client running the cancel storm
// of `mcpoke bench --cancel-rate`, for a side-by-side comparison: calls
// at a concurrency, a share of them cancelled by cancelling their context
// at a moment drawn from a range (the SDK then sends
// notifications/cancelled), first a run without cancels, then the storm:
//
//	storm [-url URL | -- CMD ARGS...] [-n 2000] [-c 64] [-rate 0.3] [-from 50ms] [-to 500ms] [-tool sleep] [-args JSON]
//
// It prints {"client":"go-sdk", calls, cancelled, callsPerSec,
// uncancelledCallsPerSec, ratio, completedP50Ms, uncancelledP50Ms,
// clientCPUMsPerKCall...}. What the server did after the cancels the SDK
// does not say: it drops whatever comes for a cancelled call.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the server's MCP endpoint (Streamable HTTP); else the command after --")
	n := flag.Int("n", 2000, "calls in each run")
	conc := flag.Int("c", 64, "calls in flight at once")
	rate := flag.Float64("rate", 0.3, "share of the calls to cancel")
	from := flag.Duration("from", 50*time.Millisecond, "earliest cancel, after the call starts")
	to := flag.Duration("to", 500*time.Millisecond, "latest cancel")
	tool := flag.String("tool", "sleep", "the tool to call")
	argsJSON := flag.String("args", `{"seconds":1,"steps":10}`, "tool arguments as a JSON object")
	flag.Parse()
	var args map[string]any
	if err := json.Unmarshal([]byte(*argsJSON), &args); err != nil {
		fail("-args: %v", err)
	}
	var transport mcp.Transport
	switch {
	case *url != "":
		transport = &mcp.StreamableClientTransport{Endpoint: *url}
	case flag.NArg() > 0:
		transport = &mcp.CommandTransport{Command: exec.Command(flag.Arg(0), flag.Args()[1:]...)}
	default:
		fail("usage: storm [-url URL | -- CMD ARGS...]")
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-storm", Version: "0"}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		fail("connect: %v", err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: *tool, Arguments: args}
	run := func(rate float64) (completed []time.Duration, cancelled, failed int, wall time.Duration, cpu time.Duration) {
		var mu sync.Mutex
		var next atomic.Int64
		cpu0 := selfCPU()
		start := time.Now()
		var wg sync.WaitGroup
		for range *conc {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(*n) {
						return
					}
					pick := math.Floor(float64(i+1)*rate) > math.Floor(float64(i)*rate)
					callCtx, cancel := context.WithCancel(ctx)
					if pick {
						d := *from + time.Duration(rand.Int64N(int64(*to-*from)+1))
						time.AfterFunc(d, cancel)
					}
					t0 := time.Now()
					_, err := cs.CallTool(callCtx, params)
					d := time.Since(t0)
					cancel()
					mu.Lock()
					switch {
					case err == nil:
						completed = append(completed, d)
					case callCtx.Err() != nil:
						cancelled++
					default:
						failed++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return completed, cancelled, failed, time.Since(start), selfCPU() - cpu0
	}
	base, _, baseFailed, baseWall, baseCPU := run(0)
	done, cancelled, failed, wall, cpu := run(*rate)
	perSec := float64(*n) / wall.Seconds()
	basePerSec := float64(*n) / baseWall.Seconds()
	out, _ := json.Marshal(map[string]any{
		"client": "go-sdk", "tool": *tool, "calls": *n, "concurrency": *conc, "cancelRate": *rate,
		"completed": len(done), "cancelled": cancelled, "failed": failed + baseFailed,
		"callsPerSec": round(perSec), "uncancelledCallsPerSec": round(basePerSec), "ratio": round(perSec / basePerSec),
		"completedP50Ms": p50(done), "uncancelledP50Ms": p50(base),
		"clientCPUMsPerKCall": round(float64(cpu.Microseconds()) / float64(*n)), "uncancelledClientCPUMsPerKCall": round(float64(baseCPU.Microseconds()) / float64(*n)),
	})
	fmt.Println(string(out))
}

func p50(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return round(float64(d[(len(d)+1)/2-1]) / 1e6)
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "storm: "+format+"\n", a...)
	os.Exit(1)
}

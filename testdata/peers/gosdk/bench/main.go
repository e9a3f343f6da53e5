// Command bench is the official Go SDK's client making the same calls as
// `mcpoke bench --json --url URL`, for a side-by-side comparison over
// Streamable HTTP:
//
//	bench -url http://127.0.0.1:8080/mcp [-n 2000] [-tool echo] [-args '{"text":"hi"}']
//
// It prints {"client":"go-sdk", p50Ms, p90Ms, p99Ms, maxMs, callsPerSec, ...}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the server's MCP endpoint")
	n := flag.Int("n", 2000, "how many calls to measure")
	tool := flag.String("tool", "echo", "the tool to call")
	argsJSON := flag.String("args", `{"text":"hi"}`, "tool arguments as a JSON object")
	flag.Parse()
	if *url == "" {
		log.Fatal("usage: bench -url http://HOST:PORT/mcp [-n N] [-tool NAME] [-args JSON]")
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(*argsJSON), &args); err != nil {
		log.Fatalf("-args: %v", err)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-bench", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: *url}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	defer cs.Close()
	call := func() {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: args}); err != nil {
			fmt.Fprintln(os.Stderr, "call:", err)
			os.Exit(1)
		}
	}
	// Warm up as mcpoke bench does: min(50, n/10) calls, plus one.
	for range min(50, *n/10) + 1 {
		call()
	}
	rounds := make([]float64, 0, *n)
	start := time.Now()
	for range *n {
		t0 := time.Now()
		call()
		rounds = append(rounds, float64(time.Since(t0))/1e6)
	}
	wall := time.Since(start)
	slices.Sort(rounds)
	pct := func(p int) float64 { return round(rounds[max((p*len(rounds)+99)/100, 1)-1]) }
	sum := 0.0
	for _, r := range rounds {
		sum += r
	}
	out, _ := json.Marshal(map[string]any{
		"client": "go-sdk", "transport": "http", "tool": *tool, "calls": *n, "concurrency": 1,
		"p50Ms": pct(50), "p90Ms": pct(90), "p99Ms": pct(99), "maxMs": round(rounds[len(rounds)-1]),
		"minMs": round(rounds[0]), "meanMs": round(sum / float64(len(rounds))),
		"callsPerSec": float64(*n) / wall.Seconds(),
	})
	fmt.Println(string(out))
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

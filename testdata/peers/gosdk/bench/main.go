// Command bench is the official Go SDK's client making the same calls as
// `mcpoke bench --json --url URL`, for a side-by-side comparison over
// Streamable HTTP:
//
//	bench -url http://127.0.0.1:8080/mcp [-n 2000] [-tool echo] [-args '{"text":"hi"}'] [-header K=V]
//
// The SDK (v1.8.0) speaks 2026-07-28 but does not mirror parameters marked
// x-mcp-header into Mcp-Param-* headers, which that version requires of
// clients (servers MUST reject the call without them). -header adds such a
// header to every request, as a conforming client would send it, so the
// comparison measures the same calls.
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
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the server's MCP endpoint")
	n := flag.Int("n", 2000, "how many calls to measure")
	tool := flag.String("tool", "echo", "the tool to call")
	argsJSON := flag.String("args", `{"text":"hi"}`, "tool arguments as a JSON object")
	var headers headerFlags
	flag.Var(&headers, "header", "a header to add to every request, as Name=Value (repeatable)")
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
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: *url, HTTPClient: headers.client()}, nil)
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

// headerFlags are headers added to every request.
type headerFlags [][2]string

func (h *headerFlags) String() string { return fmt.Sprint(*h) }

func (h *headerFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want Name=Value, got %q", v)
	}
	*h = append(*h, [2]string{name, value})
	return nil
}

// client is the default HTTP client, adding the headers.
func (h headerFlags) client() *http.Client {
	if len(h) == 0 {
		return nil
	}
	return &http.Client{Transport: addHeaders{h, http.DefaultTransport}}
}

type addHeaders struct {
	headers headerFlags
	next    http.RoundTripper
}

func (a addHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, kv := range a.headers {
		r.Header.Set(kv[0], kv[1])
	}
	return a.next.RoundTrip(r)
}

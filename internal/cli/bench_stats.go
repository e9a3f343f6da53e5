package cli

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// latencyStats summarizes round trips, in milliseconds.
type latencyStats struct {
	P50Ms  float64 `json:"p50Ms"`
	P90Ms  float64 `json:"p90Ms"`
	P99Ms  float64 `json:"p99Ms"`
	MaxMs  float64 `json:"maxMs"`
	MinMs  float64 `json:"minMs"`
	MeanMs float64 `json:"meanMs"`
}

func summarize(d []time.Duration) latencyStats {
	if len(d) == 0 {
		return latencyStats{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return latencyStats{
		P50Ms:  ms(percentile(s, 50)),
		P90Ms:  ms(percentile(s, 90)),
		P99Ms:  ms(percentile(s, 99)),
		MaxMs:  ms(s[len(s)-1]),
		MinMs:  ms(s[0]),
		MeanMs: ms(sum / time.Duration(len(s))),
	}
}

// percentile of sorted samples, nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[max(rank, 1)-1]
}

// defaultArgs gives each required string argument "hello", so that
// `mcpoke bench` works on echo-like tools without --args.
func defaultArgs(t mcp.Tool) json.RawMessage {
	args := map[string]any{}
	for _, p := range t.Input.Properties {
		if p.Required && p.IsType("string") {
			args[p.Name] = "hello"
		}
	}
	b, _ := json.Marshal(args)
	return b
}

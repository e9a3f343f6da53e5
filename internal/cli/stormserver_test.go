package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// stormServerEnvPrefix marks runStormServer's modes in hostileServerEnv:
// "storm:BEHAVIOUR:ERA".
const stormServerEnvPrefix = "storm:"

// Timing of the storm server's tool: stormSteps steps of stormStep, a
// progress notification after each when the call has a progressToken.
const (
	stormSteps = 4
	stormStep  = 25 * time.Millisecond
	// stormSpin is how long the cpu server spins after each cancel.
	stormSpin = 2 * time.Second
	// stormStallAfter is how many cancels stall the stall server.
	stormStallAfter = 5
)

// runStormServer is a stdio server of one tool, work (stormSteps steps
// of stormStep with progress), of protocol 2025-11-25 (era "legacy") or
// 2026-07-28 ("modern"), that takes notifications/cancelled in one way
// each (behaviour):
//
//	clean  stops the call and sends nothing more for it
//	late   ignores the cancel: finishes the work and answers
//	cpu    sends nothing more, but spins a core for stormSpin after it
//	stall  stops cleanly, but after stormStallAfter cancels answers
//	       nothing at all any more (ping included)
func runStormServer(mode string) int {
	behaviour, era, _ := strings.Cut(mode, ":")
	modern := era == "modern"
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	var wmu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		wmu.Lock()
		out.Write(append(b, '\n'))
		out.Flush()
		wmu.Unlock()
	}
	complete := func(m map[string]any) map[string]any {
		if modern {
			m["resultType"] = "complete"
		}
		return m
	}
	var mu sync.Mutex
	cancels := map[string]chan struct{}{}
	cancelled := 0
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
				Meta      struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		mu.Lock()
		stalled := behaviour == "stall" && cancelled >= stormStallAfter
		mu.Unlock()
		if stalled {
			continue
		}
		if msg.Method == "notifications/cancelled" {
			mu.Lock()
			if ch := cancels[string(msg.Params.RequestID)]; ch != nil {
				close(ch)
				delete(cancels, string(msg.Params.RequestID))
				cancelled++
			}
			mu.Unlock()
			continue
		}
		if msg.ID == nil {
			continue
		}
		id := msg.ID
		answer := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result}) }
		switch msg.Method {
		case "server/discover":
			if !modern {
				send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "Method not found"}})
				continue
			}
			answer(map[string]any{"resultType": "complete", "supportedVersions": []any{"2026-07-28"},
				"capabilities": map[string]any{"tools": map[string]any{}},
				"_meta":        map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "storm-" + behaviour, "version": "0"}}})
		case "initialize":
			answer(map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "storm-" + behaviour, "version": "0"}})
		case "tools/list":
			answer(complete(map[string]any{"tools": []any{map[string]any{"name": "work", "inputSchema": map[string]any{"type": "object"}}}}))
		case "tools/call":
			ch := make(chan struct{})
			mu.Lock()
			cancels[string(id)] = ch
			mu.Unlock()
			token := msg.Params.Meta.ProgressToken
			go func() {
				for i := 1; i <= stormSteps; i++ {
					select {
					case <-ch:
						switch behaviour {
						case "late":
							ch = nil // carry on, and answer
							time.Sleep(stormStep)
						case "cpu":
							for end := time.Now().Add(stormSpin); time.Now().Before(end); {
							}
							return
						default:
							return
						}
					case <-time.After(stormStep):
					}
					if token != nil {
						send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
							"params": map[string]any{"progressToken": token, "progress": i, "total": stormSteps}})
					}
				}
				mu.Lock()
				delete(cancels, string(id))
				mu.Unlock()
				answer(complete(map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}))
			}()
		default: // ping and the rest
			answer(complete(map[string]any{}))
		}
	}
	return 0
}

// stormSpec runs the test binary as runStormServer.
func stormSpec(t *testing.T, behaviour, era string) connect.Spec {
	spec := hostileSpec(t)
	spec.Name = "storm-" + behaviour
	spec.Env = []string{hostileServerEnv + "=" + stormServerEnvPrefix + behaviour + ":" + era}
	return spec
}

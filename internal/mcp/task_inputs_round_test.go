package mcp

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// An extension task's questions carry the round they came in, counted
// from 1: a second input_required with a new key is round 2.
func TestExtensionTaskInputsCountRounds(t *testing.T) {
	ask := func(key string) string {
		return `{"resultType":"complete","taskId":"x1","status":"input_required","inputRequests":{"` + key + `":{"method":"elicitation/create",` +
			`"params":{"mode":"form","message":"?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`
	}
	cli, clk, _ := startExtServer(t, ask("who"), ask("who"), ask("where"), ask("where"),
		`{"resultType":"complete","taskId":"x1","status":"completed","result":{"content":[]}}`)
	var mu sync.Mutex
	rounds := map[string]int{}
	cs := NewClientSide(ClientSideOptions{Features: ClientFeatures{ElicitForm: true, FollowTasks: true}, Ask: func(q *Question) {
		mu.Lock()
		rounds[q.InputKey] = q.Round
		mu.Unlock()
		_ = q.Answer(ElicitResult(ElicitAccept, json.RawMessage(`{"name":"Ada"}`)), nil)
	}})
	ref := startExtTask(t, cli)
	if info := followExt(t, cli, clk, ref, cs); info.State != session.Completed {
		t.Fatalf("state %v", info.State)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(rounds) != 2 || rounds["who"] != 1 || rounds["where"] != 2 {
		t.Errorf("rounds by key %v; want who 1, where 2", rounds)
	}
}

package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// In the modern era ask sends no request of its own: it answers
// input_required with its question, asks only what the request's own
// clientCapabilities declare, and completes with the retry's answer.
func TestDemoAskUsesMultiRoundTripInTheModernEra(t *testing.T) {
	cli, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cli.UseEra2026(session.Era2026Options{ClientInfo: session.Implementation{Name: "t", Version: "0"},
		Capabilities: json.RawMessage(`{"sampling":{}}`)})
	res, err := cli.Do(ctx, "tools/call", json.RawMessage(`{"name":"ask","arguments":{}}`), session.CallOptions{})
	if err != nil || !strings.Contains(string(res), "did not declare form mode elicitation in its request's clientCapabilities") {
		t.Fatalf("ask without elicitation declared: %s %v", res, err)
	}
	res, err = cli.Do(ctx, "tools/call", json.RawMessage(`{"name":"ask","arguments":{"kind":"sampling"}}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ir, ok, err := mcp.ReadInputRequired(res)
	if !ok || err != nil || len(ir.Requests) != 1 || ir.Requests[0].Method != "sampling/createMessage" || ir.State == nil {
		t.Fatalf("round 1: %s (%v)", res, err)
	}
	retry := func(state json.RawMessage) (json.RawMessage, error) {
		p, _ := mcp.RetryParams(json.RawMessage(`{"name":"ask","arguments":{"kind":"sampling"}}`),
			map[string]json.RawMessage{ir.Requests[0].Key: mcp.SamplingText("Paris", "t")}, state)
		return cli.Do(ctx, "tools/call", p, session.CallOptions{})
	}
	res, err = retry(ir.State)
	if err != nil || mcp.ReadResultMeta(res).Type != "complete" || !strings.Contains(string(res), "Paris") {
		t.Fatalf("round 2: %s %v", res, err)
	}
	if _, err = retry(json.RawMessage(`"forged"`)); err == nil {
		t.Fatal("a requestState the demo never gave was accepted")
	}
}

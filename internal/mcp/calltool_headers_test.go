package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// regionTool mirrors its argument r into Mcp-Param-Region and n into
// Mcp-Param-N.
var regionTool = Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
	"r":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`)}

// CallParamHeaders reads the headers from built tools/call params, as
// bench re-sends them.
func TestCallParamHeadersReadTheArguments(t *testing.T) {
	params, err := CallToolParams("t", json.RawMessage(`{"r":"eu","n":3}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := CallParamHeaders(regionTool, params)
	if want := map[string]string{"Region": "eu", "N": "3"}; err != nil || !maps.Equal(got, want) {
		t.Errorf("CallParamHeaders = %v, %v; want %v", got, err, want)
	}
	if got, err := CallParamHeaders(regionTool, json.RawMessage(`{"name":"t"}`)); err != nil || got != nil {
		t.Errorf("no arguments: %v, %v; want no headers", got, err)
	}
	if _, err := CallParamHeaders(regionTool, json.RawMessage(`[1]`)); err == nil {
		t.Error("params that are not an object: no error")
	}
}

// In the 2026 era a call whose marked argument no header can carry fails
// before anything is sent.
func TestStartToolCallRefusesAnArgumentNoHeaderCarries(t *testing.T) {
	a, b := transporttest.Pipe()
	sent := make(chan string, 4)
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/call": func(_ context.Context, in *session.Incoming) (any, error) {
			sent <- string(in.Params)
			return map[string]any{"content": []any{}}, nil
		},
	}})
	cli := session.New(a, session.Config{})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	cli.UseEra2026(session.Era2026Options{})
	if c, err := StartToolCall(testContext(t), cli, regionTool, json.RawMessage(`{"n":1.5}`), session.CallOptions{}); !errors.Is(err, ErrHeaderValue) {
		t.Fatalf("StartToolCall with n 1.5 = %v, %v; want ErrHeaderValue", c, err)
	}
	c, err := StartToolCall(testContext(t), cli, regionTool, json.RawMessage(`{"n":2}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(testContext(t)); err != nil {
		t.Fatal(err)
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	raw := recvWithin(t, sent, "the one call sent")
	if err := json.Unmarshal([]byte(raw), &p); err != nil || p.Name != "t" || string(p.Arguments) != `{"n":2}` {
		t.Errorf("sent %s", raw)
	}
	select {
	case more := <-sent:
		t.Errorf("a second call was sent: %s", more)
	default:
	}
}

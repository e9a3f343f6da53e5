package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// startMRTR is a demo with the conformance fixtures, spoken to in the
// modern era by a client that declares caps.
func startMRTR(t *testing.T, caps string) (func(method, params string) (json.RawMessage, error), context.Context) {
	cli, _ := startServer(t, func(s *server) {
		s.tools = append(s.tools, preparedConformanceTools()...)
		s.fixtures = true
	})
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	cli.UseEra2026(session.Era2026Options{ClientInfo: session.Implementation{Name: "t", Version: "0"}, Capabilities: json.RawMessage(caps)})
	return func(method, params string) (json.RawMessage, error) {
		return cli.Do(ctx, method, json.RawMessage(params), session.CallOptions{})
	}, ctx
}

func inputRequired(t *testing.T, what string, res json.RawMessage, err error) (keys []string, state string) {
	t.Helper()
	var r struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err != nil || json.Unmarshal(res, &r) != nil || r.ResultType != "input_required" {
		t.Fatalf("%s: %s %v, want input_required", what, res, err)
	}
	for k := range r.InputRequests {
		keys = append(keys, k)
	}
	return keys, r.RequestState
}

func isRPC(err error, code int64) bool {
	re, ok := err.(*session.RPCError)
	return ok && re.Code == code
}

const accepted = `{"action":"accept","content":{"name":"Alice","color":"blue","ok":true,"context":"c"}}`

// The elicitation fixture asks, re-asks what a retry left out, refuses
// responses that are not ElicitResults, and completes with the answer.
func TestMRTRFixtureElicitation(t *testing.T) {
	do, _ := startMRTR(t, `{"elicitation":{}}`)
	call := func(extra string) (json.RawMessage, error) {
		return do("tools/call", `{"name":"test_input_required_result_elicitation","arguments":{}`+extra+`}`)
	}
	res, err := call("")
	if keys, _ := inputRequired(t, "round 1", res, err); len(keys) != 1 || keys[0] != "user_name" {
		t.Fatalf("round 1 asks %v", keys)
	}
	res, err = call(`,"inputResponses":{"wrong_key":{"action":"accept","content":{}}}`)
	inputRequired(t, "a retry without the answer", res, err)
	for _, bad := range []string{`{"user_name":12345}`, `null`, `{"user_name":{"content":{}}}`, `[1]`} {
		if res, err := call(`,"inputResponses":` + bad); !isRPC(err, session.CodeInvalidParams) {
			t.Errorf("inputResponses %s: %s %v, want -32602", bad, res, err)
		}
	}
	res, err = call(`,"inputResponses":{"user_name":` + accepted + `,"extra":{"x":1}}`)
	if err != nil || mcp.ReadResultMeta(res).Type != "complete" || !strings.Contains(string(res), "Hello, Alice!") {
		t.Fatalf("round 2: %s %v", res, err)
	}
	// A client that did not declare elicitation is told so.
	do2, _ := startMRTR(t, `{}`)
	if _, err := do2("tools/call", `{"name":"test_input_required_result_elicitation","arguments":{}}`); !isRPC(err, session.CodeMissingClientCapability) {
		t.Errorf("without elicitation declared: %v, want -32021", err)
	}
}

// The multi-round fixture signs a new state each round and refuses one
// that was changed; the capabilities fixture asks only what is declared.
func TestMRTRFixtureRoundsAndState(t *testing.T) {
	do, _ := startMRTR(t, `{"elicitation":{}}`)
	call := func(name, extra string) (json.RawMessage, error) {
		return do("tools/call", `{"name":"`+name+`","arguments":{}`+extra+`}`)
	}
	res, err := call("test_input_required_result_multi_round", "")
	_, s1 := inputRequired(t, "round 1", res, err)
	res, err = call("test_input_required_result_multi_round", `,"inputResponses":{"step1":`+accepted+`},"requestState":"`+s1+`"`)
	keys, s2 := inputRequired(t, "round 2", res, err)
	if len(keys) != 1 || keys[0] != "step2" || s2 == s1 || s2 == "" {
		t.Fatalf("round 2 asks %v with state %q", keys, s2)
	}
	if _, err := call("test_input_required_result_multi_round", `,"inputResponses":{"step2":`+accepted+`},"requestState":"`+s2+`-TAMPERED"`); !isRPC(err, session.CodeInvalidParams) {
		t.Errorf("a tampered state: %v, want -32602", err)
	}
	res, err = call("test_input_required_result_multi_round", `,"inputResponses":{"step2":`+accepted+`},"requestState":"`+s2+`"`)
	if err != nil || !strings.Contains(string(res), "Alice's favorite color is blue") {
		t.Fatalf("round 3: %s %v", res, err)
	}
	doS, _ := startMRTR(t, `{"sampling":{}}`)
	res, err = doS("tools/call", `{"name":"test_input_required_result_capabilities","arguments":{}}`)
	if keys, _ := inputRequired(t, "capabilities", res, err); len(keys) != 1 || keys[0] != "greeting" {
		t.Errorf("with sampling only declared, asks %v", keys)
	}
}

// The prompt fixture asks before it answers, as prompts/get may.
func TestMRTRFixturePrompt(t *testing.T) {
	do, _ := startMRTR(t, `{"elicitation":{}}`)
	res, err := do("prompts/get", `{"name":"test_input_required_result_prompt"}`)
	inputRequired(t, "prompts/get", res, err)
	res, err = do("prompts/get", `{"name":"test_input_required_result_prompt","inputResponses":{"user_context":`+accepted+`}}`)
	if err != nil || !strings.Contains(string(res), `"messages"`) || !strings.Contains(string(res), "Use this context: c") {
		t.Fatalf("retry: %s %v", res, err)
	}
}

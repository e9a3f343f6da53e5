package demo

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The conformance suite's fixtures of multi round-trip requests (SEP-2322,
// protocol 2026-07-28): tools, and a prompt, that answer input_required
// with what they want asked and complete when the retry brings every
// answer. One engine (mrtrFixture.serve) runs them all: it asks only what
// the client declared, re-asks what a retry left out, refuses a response
// that is not the result of what was asked, and signs its requestState,
// so that a tampered one is refused.

// mrtrAsk is one inputRequest: its key, the client capability it needs,
// and the request.
type mrtrAsk struct {
	key, capability, method string
	params                  any
}

// mrtrFixture is a fixture of rounds of asks, each round asked once the
// previous one is answered; finish makes the result from every answer.
type mrtrFixture struct {
	name, description string
	rounds            [][]mrtrAsk
	// signed: every input_required carries a signed requestState, and a
	// retry without it is asked again from the start.
	signed bool
	// onlyDeclared drops the asks the client did not declare, instead of
	// refusing with -32021.
	onlyDeclared bool
	finish       func(answers map[string]json.RawMessage) any
}

func elicitAsk(key, message, field, typ string) mrtrAsk {
	return mrtrAsk{key, "elicitation", "elicitation/create", map[string]any{"message": message,
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{field: map[string]any{"type": typ}}, "required": []string{field}}}}
}

func samplingAsk(key, text string, maxTokens int) mrtrAsk {
	return mrtrAsk{key, "sampling", "sampling/createMessage", map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}}, "maxTokens": maxTokens}}
}

var rootsAsk = mrtrAsk{"client_roots", "roots", "roots/list", map[string]any{}}

// conformanceMRTRFixtures are the suite's input-required tools; the last
// is its prompt.
func conformanceMRTRFixtures() []*mrtrFixture {
	userName := elicitAsk("user_name", "What is your name?", "name", "string")
	confirm := elicitAsk("confirm", "Please confirm", "ok", "boolean")
	return []*mrtrFixture{
		{name: "test_input_required_result_elicitation", description: "asks the user's name (a form), then greets them",
			rounds: [][]mrtrAsk{{userName}},
			finish: func(a map[string]json.RawMessage) any {
				return textResult("Hello, " + elicited(a["user_name"], "name") + "!")
			}},
		{name: "test_input_required_result_sampling", description: "asks the client's model a question, then says its answer",
			rounds: [][]mrtrAsk{{samplingAsk("capital_question", "What is the capital of France?", 100)}},
			finish: func(a map[string]json.RawMessage) any {
				return textResult("The model answered: " + sampled(a["capital_question"]))
			}},
		{name: "test_input_required_result_list_roots", description: "asks the client's roots, then lists them",
			rounds: [][]mrtrAsk{{rootsAsk}},
			finish: func(a map[string]json.RawMessage) any {
				return textResult("The client's roots: " + rootURIs(a["client_roots"]))
			}},
		{name: "test_input_required_result_request_state", description: "asks a confirmation with a signed requestState, then checks the state",
			rounds: [][]mrtrAsk{{confirm}}, signed: true,
			finish: func(a map[string]json.RawMessage) any {
				return textResult("state-ok: the requestState came back intact; confirmed: " + elicited(a["confirm"], "ok"))
			}},
		{name: "test_input_required_result_multiple_inputs", description: "asks a form, a sampling and the roots at once",
			rounds: [][]mrtrAsk{{userName, samplingAsk("greeting", "Generate a greeting", 50), rootsAsk}}, signed: true,
			finish: func(a map[string]json.RawMessage) any {
				return textResult(fmt.Sprintf("name %s, greeting %q, roots %s", elicited(a["user_name"], "name"), sampled(a["greeting"]), rootURIs(a["client_roots"])))
			}},
		{name: "test_input_required_result_multi_round", description: "asks a name, then a colour, in two rounds",
			rounds: [][]mrtrAsk{{elicitAsk("step1", "Step 1: What is your name?", "name", "string")},
				{elicitAsk("step2", "Step 2: What is your favorite color?", "color", "string")}}, signed: true,
			finish: func(a map[string]json.RawMessage) any {
				return textResult(elicited(a["step1"], "name") + "'s favorite color is " + elicited(a["step2"], "color"))
			}},
		{name: "test_input_required_result_tampered_state", description: "signs its requestState and refuses one that was changed (-32602)",
			rounds: [][]mrtrAsk{{confirm}}, signed: true,
			finish: func(a map[string]json.RawMessage) any {
				return textResult("the requestState was intact; confirmed: " + elicited(a["confirm"], "ok"))
			}},
		{name: "test_input_required_result_capabilities", description: "asks a form, a sampling and the roots, each only if the client declared it",
			rounds: [][]mrtrAsk{{userName, samplingAsk("greeting", "Generate a greeting", 50), rootsAsk}}, signed: true, onlyDeclared: true,
			finish: func(a map[string]json.RawMessage) any {
				return textResult(fmt.Sprintf("answered: %d of the inputs the client could give", len(a)))
			}},
		{name: "test_streaming_elicitation", description: "asks a form in its result (input_required), never in a request of its own",
			rounds: [][]mrtrAsk{{elicitAsk("answer", "Anything to say?", "text", "string")}},
			finish: func(a map[string]json.RawMessage) any {
				return textResult("You said: " + elicited(a["answer"], "text"))
			}},
		{name: mrtrPromptName, description: "asks what context the prompt should use, then builds it",
			rounds: [][]mrtrAsk{{elicitAsk("user_context", "What context should the prompt use?", "context", "string")}},
			finish: func(a map[string]json.RawMessage) any {
				return map[string]any{"messages": []promptMessage{{"user", textContent{"text", "Use this context: " + elicited(a["user_context"], "context")}}}}
			}},
	}
}

// mrtrPromptName is the suite's prompt that asks before it answers.
const mrtrPromptName = "test_input_required_result_prompt"

// conformanceMRTRTools are the fixtures but the prompt, as tools.
func conformanceMRTRTools() []*tool {
	var tools []*tool
	for _, f := range conformanceMRTRFixtures() {
		if f.name == mrtrPromptName {
			continue
		}
		tools = append(tools, &tool{Tool: mcp.Tool{Name: f.name, Description: "Conformance fixture (2026-07-28, input_required): " + f.description + ".",
			InputSchema: json.RawMessage(noArgsSchema)},
			run: func(_ context.Context, _ *server, in *session.Incoming, _ json.RawMessage) (any, error) {
				return f.serve(in)
			}})
	}
	return tools
}

// mrtrPrompt is the fixture prompt's engine.
var mrtrPrompt = sync.OnceValue(func() *mrtrFixture {
	all := conformanceMRTRFixtures()
	return all[len(all)-1]
})

// mrtrState is what a fixture's requestState carries: its name, the round
// asked, and the answers of the rounds before.
type mrtrState struct {
	Fixture string                     `json:"f"`
	Round   int                        `json:"r"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// serve answers one request of the fixture: round one, a retry, or a
// refusal.
func (f *mrtrFixture) serve(in *session.Incoming) (any, error) {
	meta := mcp.ReadRequestMeta(in.Params)
	if meta.Version == "" {
		return nil, invalidParams("%s answers input_required, which needs protocol %s: send the request with its _meta", f.name, session.Era2026Version)
	}
	var p struct {
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   *string         `json:"requestState"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return nil, invalidParams("%s: params: %v", f.name, err)
	}
	var responses map[string]json.RawMessage
	if p.InputResponses != nil {
		if err := json.Unmarshal(p.InputResponses, &responses); err != nil || responses == nil {
			return nil, invalidParams("inputResponses must be an object of responses by the keys of inputRequests, not %s", clip(p.InputResponses))
		}
	}
	st := mrtrState{Fixture: f.name, Answers: map[string]json.RawMessage{}}
	switch {
	case p.RequestState != nil:
		if err := openState(*p.RequestState, &st); err != nil || st.Fixture != f.name || st.Round >= len(f.rounds) {
			return nil, invalidParams("%s: the requestState is not one this server gave (it failed its integrity check): ask again without it", f.name)
		}
		if st.Answers == nil {
			st.Answers = map[string]json.RawMessage{}
		}
	case f.signed:
		responses = nil // answers without the state they answer: ask again
	}
	caps := mcp.ParseClientCapabilities(meta.Capabilities)
	for {
		var pending []mrtrAsk
		for _, ask := range f.rounds[st.Round] {
			if !declares(caps, ask.capability) {
				if f.onlyDeclared {
					continue
				}
				return nil, missingCapability(ask.capability, f.name+" asks for "+ask.method)
			}
			v, ok := responses[ask.key]
			if !ok {
				pending = append(pending, ask)
				continue
			}
			if err := checkResponse(ask, v); err != nil {
				return nil, err
			}
			st.Answers[ask.key] = v
		}
		if len(pending) > 0 {
			return f.inputRequired(pending, st)
		}
		if st.Round+1 == len(f.rounds) {
			return f.finish(st.Answers), nil
		}
		st.Round++
		responses = nil // this round's are asked now
	}
}

// inputRequired is an InputRequiredResult of asks.
func (f *mrtrFixture) inputRequired(asks []mrtrAsk, st mrtrState) (any, error) {
	requests := map[string]any{}
	for _, a := range asks {
		requests[a.key] = map[string]any{"method": a.method, "params": a.params}
	}
	res := map[string]any{"resultType": mcp.ResultInputRequired, "inputRequests": requests}
	if f.signed {
		res["requestState"] = sealState(st)
	}
	return res, nil
}

func declares(c mcp.ClientFeatures, capability string) bool {
	switch capability {
	case "elicitation":
		return c.ElicitForm
	case "sampling":
		return c.Sampling
	case "roots":
		return c.Roots
	}
	return false
}

// checkResponse refuses a response that is not the result of ask's
// method: a number or a string where an ElicitResult belongs.
func checkResponse(ask mrtrAsk, v json.RawMessage) error {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil || obj == nil {
		return invalidParams("inputResponses.%s must be the result of %s (an object), not %s", ask.key, ask.method, clip(v))
	}
	need := map[string]string{"elicitation/create": "action", "sampling/createMessage": "content", "roots/list": "roots"}[ask.method]
	if _, ok := obj[need]; !ok {
		return invalidParams("inputResponses.%s is not a result of %s: it has no %q", ask.key, ask.method, need)
	}
	return nil
}

// elicited is field of an accepted ElicitResult's content, or what the
// user did instead.
func elicited(raw json.RawMessage, field string) string {
	var r struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	if r.Action != "accept" {
		return "(the user chose " + r.Action + ")"
	}
	var s string
	if json.Unmarshal(r.Content[field], &s) == nil {
		return s
	}
	return string(r.Content[field])
}

// sampled is the text of a CreateMessageResult.
func sampled(raw json.RawMessage) string {
	var r struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Content.Text
}

// rootURIs lists the URIs of a ListRootsResult.
func rootURIs(raw json.RawMessage) string {
	var r struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	_ = json.Unmarshal(raw, &r)
	uris := make([]string, len(r.Roots))
	for i, root := range r.Roots {
		uris[i] = root.URI
	}
	if len(uris) == 0 {
		return "(none)"
	}
	return strings.Join(uris, ", ")
}

// clip is raw JSON shortened for a message.
func clip(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

// stateKey signs the fixtures' requestState; each run of the demo has its
// own, so a state outlives neither the process nor a change of it.
var stateKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand never fails on supported platforms
	return k
})

// sealState is st encoded and signed: base64url(JSON) "." base64url(HMAC).
func sealState(st mrtrState) string {
	raw, _ := json.Marshal(st)
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + base64.RawURLEncoding.EncodeToString(stateMAC(body))
}

// openState checks a sealed state's signature and decodes it into st.
func openState(sealed string, st *mrtrState) error {
	body, sig, ok := strings.Cut(sealed, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(mac, stateMAC(body)) {
		return fmt.Errorf("bad signature")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, st)
}

func stateMAC(body string) []byte {
	m := hmac.New(sha256.New, stateKey())
	m.Write([]byte(body))
	return m.Sum(nil)
}

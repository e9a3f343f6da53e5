package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcpoke/mcpoke/session"
)

// Multi round-trip requests (protocol 2026-07-28): instead of sending
// requests of its own, a server answers tools/call, prompts/get or
// resources/read with resultType "input_required": what it wants asked
// (inputRequests) and an opaque requestState. The client answers them with
// the same screens and policies as 2025's server requests, and retries
// the request under a new id with inputResponses and the exact
// requestState.

// ResultInputRequired is the resultType of an InputRequiredResult.
const ResultInputRequired = "input_required"

// MaxRounds bounds the rounds of one request: a server that asks again
// and again is stopped there, its last round reported.
const MaxRounds = 10

// ErrTooManyRounds means the server still wanted input after MaxRounds rounds.
var ErrTooManyRounds = fmt.Errorf("the server still asks for input after %d rounds; mcpoke stopped retrying", MaxRounds)

// ErrAbandoned means the request was abandoned between rounds (cancelled while
// its questions were open); no retry was sent.
var ErrAbandoned = errors.New("abandoned between rounds: no retry was sent")

// InputRequiredAllowed reports whether a server may answer method with
// input_required: only tools/call, prompts/get and resources/read.
func InputRequiredAllowed(method string) bool {
	switch method {
	case "tools/call", "prompts/get", "resources/read":
		return true
	}
	return false
}

// ErrInputRequiredNotAllowed means the server answered input_required to a
// request that may not have one; mcpoke does not retry it.
var ErrInputRequiredNotAllowed = errors.New("input_required is allowed only for tools/call, prompts/get and resources/read; not retried")

// InputRequired is an input_required result, read once.
type InputRequired struct {
	// Requests are its inputRequests, by key in key order.
	Requests []InputRequest
	// State is requestState exactly as sent (a JSON string, escapes and
	// all), to be echoed byte for byte; nil when absent, and then the
	// retry carries none. FollowRounds lets it go (nil) once the next
	// round is sent; HasState, StateSize and StateQuote stay.
	State json.RawMessage
	// HasState: the server gave a requestState, of StateSize bytes
	// (decoded), quoted in StateQuote (see QuoteState).
	HasState   bool
	StateSize  int
	StateQuote string
}

// InputRequest is one of the server's inputRequests.
type InputRequest struct {
	Key    string
	Method string
	Params json.RawMessage
}

// ReadInputRequired reads result as an InputRequiredResult; ok is false
// when its resultType is not input_required. A malformed one is an error.
func ReadInputRequired(result json.RawMessage) (ir InputRequired, ok bool, err error) {
	if ReadResultMeta(result).Type != ResultInputRequired {
		return ir, false, nil
	}
	// Members by their exact keys (encoding/json would match struct
	// fields without case), and requestState as a slice of result, not a
	// copy: it may be megabytes, kept for each round.
	if !json.Valid(result) {
		return ir, true, errors.New("input_required result: not JSON")
	}
	var reqs map[string]map[string]json.RawMessage
	if raw := session.Member(result, "inputRequests"); raw != nil {
		if err := json.Unmarshal(raw, &reqs); err != nil {
			return ir, true, fmt.Errorf("input_required result: inputRequests: %w", err)
		}
	}
	if state := session.Member(result, "requestState"); len(state) > 0 && string(state) != "null" {
		if state[0] != '"' {
			return ir, true, errors.New("input_required result: requestState is not a string")
		}
		ir.State, ir.HasState, ir.StateSize, ir.StateQuote = state, true, StateSize(state), QuoteState(state)
	}
	for k, v := range reqs {
		var method string
		if err := json.Unmarshal(v["method"], &method); v["method"] != nil && err != nil {
			return ir, true, fmt.Errorf("input_required result: inputRequests[%q].method is not a string", clip(k, 80))
		}
		ir.Requests = append(ir.Requests, InputRequest{Key: k, Method: method, Params: v["params"]})
	}
	sort.Slice(ir.Requests, func(i, j int) bool { return ir.Requests[i].Key < ir.Requests[j].Key })
	if len(ir.Requests) == 0 && ir.State == nil {
		return ir, true, errors.New("input_required result with neither inputRequests nor requestState (the spec requires one)")
	}
	return ir, true, nil
}

// RetryParams are the params of the next round: the request's params as
// sent (info.Params) with inputResponses and requestState replaced by
// this round's, and the progress token dropped (the session gives the new
// request its own, as it does the era's _meta).
func RetryParams(sent json.RawMessage, responses map[string]json.RawMessage, state json.RawMessage) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(sent); len(t) > 0 && string(t) != "null" {
		if err := json.Unmarshal(t, &obj); err != nil {
			return nil, fmt.Errorf("params to retry are not a JSON object: %w", err)
		}
	}
	delete(obj, "inputResponses")
	delete(obj, "requestState")
	if m, ok := obj["_meta"]; ok {
		meta := map[string]json.RawMessage{}
		if json.Unmarshal(m, &meta) == nil {
			delete(meta, "progressToken")
			if len(meta) == 0 {
				delete(obj, "_meta")
			} else {
				obj["_meta"], _ = json.Marshal(meta)
			}
		}
	}
	if responses != nil {
		obj["inputResponses"], _ = json.Marshal(responses)
	}
	out, err := json.Marshal(obj)
	if err != nil || state == nil {
		return out, err
	}
	if !json.Valid(state) {
		return nil, errors.New("requestState to echo is not JSON")
	}
	// The state goes in as it came, spliced before the closing brace: it
	// may be megabytes, and json.Marshal would copy it thrice.
	b := make([]byte, 0, len(out)+len(state)+20)
	b = append(b, out[:len(out)-1]...)
	if len(obj) > 0 {
		b = append(b, ',')
	}
	b = append(append(b, `"requestState":`...), state...)
	return append(b, '}'), nil
}

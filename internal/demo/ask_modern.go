package demo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// In 2026-07-28 a server sends no requests of its own: the modern ask
// answers input_required (multi round-trip requests) with what it wants
// asked, and completes when the retry brings the answer. It keeps no
// state: everything it needs comes back in requestState.

// askInputKey is the key of the demo's one inputRequest.
const askInputKey = "ask"

// askStatePrefix starts the demo's requestState. Tampering with it can do
// nothing worse than fail the call, so it carries no MAC (the spec allows
// that); it is checked against the arguments all the same.
const askStatePrefix = "mcpoke-demo/ask/v1:"

// mrtrParams are what a modern retry adds to tools/call params.
type mrtrParams struct {
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   *string                    `json:"requestState"`
}

// runAskModern is ask in the modern era: round 1 asks, round 2 answers.
// The client's capabilities are the request's own (_meta), not an
// initialize's, of which there is none.
func runAskModern(srv *server, in *session.Incoming, args askArgs) (any, error) {
	client := mcp.ParseClientCapabilities(mcp.ReadRequestMeta(in.Params).Capabilities)
	method, params, missing := askRequest(args, client)
	if missing != "" {
		return errorResult("the client did not declare " + missing + " in its request's clientCapabilities, " +
			"so the demo server may not ask for it (mcpoke declares it in the UI, and headless with --sample or --elicit)"), nil
	}
	if m, ok := params.(map[string]any); ok && m["mode"] == "url" {
		delete(m, "elicitationId") // not in the 2026-07-28 shape
	}
	var p mrtrParams
	_ = json.Unmarshal(in.Params, &p)
	if p.RequestState == nil {
		srv.log.Info("asked the client for input (input_required)", "id", in.ID.String(), "method", method)
		return map[string]any{
			"resultType":    mcp.ResultInputRequired,
			"inputRequests": map[string]any{askInputKey: map[string]any{"method": method, "params": params}},
			"requestState":  askStatePrefix + args.Kind,
		}, nil
	}
	if kind, ok := strings.CutPrefix(*p.RequestState, askStatePrefix); !ok || kind != args.Kind {
		return nil, invalidParams("ask: requestState %q is not one this server gave for kind %q", *p.RequestState, args.Kind)
	}
	answer, ok := p.InputResponses[askInputKey]
	srv.log.Info("the client retried with its input", "id", in.ID.String(), "answered", ok)
	if !ok {
		return textResult(fmt.Sprintf("the client retried without an answer to %s (declined); the demo server does not ask again", method)), nil
	}
	return textResult(fmt.Sprintf("the client answered %s (in its retry's inputResponses): %s", method, answer)), nil
}

// rootsStatePrefix is the demo's requestState for roots.
const rootsStatePrefix = "mcpoke-demo/roots/v1"

// runRootsModern is roots in the modern era: round 1 asks for roots/list
// in inputRequests, round 2 lists what the client answered.
func runRootsModern(srv *server, in *session.Incoming) (any, error) {
	client := mcp.ParseClientCapabilities(mcp.ReadRequestMeta(in.Params).Capabilities)
	if !client.Roots {
		return errorResult("the client did not declare roots in its request's clientCapabilities, so the demo server " +
			"may not ask for them (mcpoke declares them in the UI, and headless with --root DIR)"), nil
	}
	var p mrtrParams
	_ = json.Unmarshal(in.Params, &p)
	if p.RequestState == nil {
		srv.log.Info("asked the client for its roots (input_required)", "id", in.ID.String())
		return map[string]any{
			"resultType":    mcp.ResultInputRequired,
			"inputRequests": map[string]any{"roots": map[string]any{"method": "roots/list"}},
			"requestState":  rootsStatePrefix,
		}, nil
	}
	if *p.RequestState != rootsStatePrefix {
		return nil, invalidParams("roots: requestState %q is not one this server gave", *p.RequestState)
	}
	answer, ok := p.InputResponses["roots"]
	if !ok {
		return textResult("the client retried without its roots; the demo server does not ask again"), nil
	}
	return rootsText(answer)
}

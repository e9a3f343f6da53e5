package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The demo server is dual-era: initialize selects a legacy version, and
// a request whose _meta carries a modern protocolVersion is served by
// that revision's rules, on its own: the version is checked, the result
// says resultType and who answered, and lists say how long they keep.

// listTTLms is how long a client may keep the demo's lists: they never
// change while it runs.
const listTTLms = 60_000

// demoVersions lists every version the demo speaks, newest first, as a
// modern server names them in UnsupportedProtocolVersion and
// server/discover.
func demoVersions() []string {
	all := session.AllVersions()
	slices.Reverse(all)
	return all
}

// eraAware serves a handler in both eras. A modern request with a version
// the demo does not speak gets UnsupportedProtocolVersion (-32022) with
// the versions it does; a modern result gets resultType and serverInfo,
// and, when cacheable, ttlMs and cacheScope.
func eraAware(h session.Handler, cacheable bool, who func() session.Implementation) session.Handler {
	return func(ctx context.Context, in *session.Incoming) (any, error) {
		meta := mcp.ReadRequestMeta(in.Params)
		if meta.Version == "" {
			return h(ctx, in)
		}
		if !session.IsEra2026(meta.Version) || !slices.Contains(session.Era2026Versions, meta.Version) {
			data, _ := json.Marshal(map[string]any{"supported": demoVersions(), "requested": meta.Version})
			return nil, &session.RPCError{Code: session.CodeUnsupportedProtocolVersion,
				Message: "Unsupported protocol version: " + meta.Version, Data: data}
		}
		if caps := bytes.TrimSpace(meta.Capabilities); len(caps) == 0 || caps[0] != '{' {
			return nil, &session.RPCError{Code: session.CodeInvalidParams,
				Message: "Invalid params: params._meta has no io.modelcontextprotocol/clientCapabilities object (send {} to declare none)"}
		}
		res, err := h(ctx, in)
		if err != nil {
			return nil, err
		}
		return modernResult(res, cacheable, who())
	}
}

// modernResult adds what every modern result carries to res: its
// resultType, who answered, and when cacheable how long it keeps.
func modernResult(res any, cacheable bool, who session.Implementation) (json.RawMessage, error) {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return raw, nil // not an object: nothing to add to
	}
	if _, ok := obj["resultType"]; !ok {
		obj["resultType"] = json.RawMessage(`"complete"`)
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(m, &meta)
	}
	info, _ := json.Marshal(who)
	meta[session.MetaServerInfo] = info
	obj["_meta"], _ = json.Marshal(meta)
	if cacheable {
		obj["ttlMs"], _ = json.Marshal(listTTLms)
		obj["cacheScope"] = json.RawMessage(`"public"`)
	}
	return json.Marshal(obj)
}

// cacheable are the methods whose modern results say how long they keep.
var cacheable = map[string]bool{"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true}

// bothEras adds server/discover to handlers and serves every method in
// both eras: a method the modern revision removed is unknown to a modern
// request (legacyOnly), the others are eraAware.
func (srv *server) bothEras(handlers map[string]session.Handler) map[string]session.Handler {
	handlers["server/discover"] = srv.discover
	handlers["subscriptions/listen"] = srv.listen
	handlers["ping"] = func(context.Context, *session.Incoming) (any, error) { return map[string]any{}, nil }
	for method, h := range handlers {
		if _, removed := session.RemovedIn2026(method); removed {
			handlers[method] = legacyOnly(method, h)
		} else {
			handlers[method] = eraAware(h, cacheable[method], srv.serverInfo)
		}
	}
	return handlers
}

// legacyOnly serves a method the modern revision removed (initialize,
// ping, logging/setLevel, resources/subscribe...) to legacy requests
// only: a request that names a modern version is answered as for any
// method the server does not have, -32601, and over HTTP 404.
func legacyOnly(method string, h session.Handler) session.Handler {
	return func(ctx context.Context, in *session.Incoming) (any, error) {
		if meta := mcp.ReadRequestMeta(in.Params); meta.Version != "" {
			why, _ := session.RemovedIn2026(method)
			return nil, &session.RPCError{Code: session.CodeMethodNotFound,
				Message: "Method not found: " + method + " is not part of protocol " + meta.Version + " (" + why + ")"}
		}
		return h(ctx, in)
	}
}

// discoverResult is the demo's answer to server/discover.
type discoverResult struct {
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      map[string]any `json:"capabilities"`
	Instructions      string         `json:"instructions"`
}

// discover answers server/discover: every version the demo speaks, and
// the capabilities and instructions its initialize declares, so the two
// eras never disagree. A discover without _meta is answered the modern
// way too: only a modern client sends it.
func (srv *server) discover(ctx context.Context, _ *session.Incoming) (any, error) {
	init, err := srv.initialized(ctx)
	if err != nil {
		return nil, err
	}
	caps := maps.Clone(init.Capabilities)
	delete(caps, "tasks") // an extension in this era
	caps["extensions"] = extensionCapability
	return modernResult(discoverResult{SupportedVersions: demoVersions(), Capabilities: caps,
		Instructions: init.Instructions}, true, init.ServerInfo)
}

// initialized is what initialize answers, as a modern server's identity
// and capabilities.
func (srv *server) initialized(ctx context.Context) (initializeResult, error) {
	res, err := srv.initialize(ctx, &session.Incoming{Params: json.RawMessage(`{"protocolVersion":"` + session.LatestVersion + `"}`)})
	if err != nil {
		return initializeResult{}, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return initializeResult{}, err
	}
	var r initializeResult
	err = json.Unmarshal(raw, &r)
	return r, err
}

// serverInfo is who the demo says it is, in modern results: what
// initialize says, without answering an initialize for each result.
func (srv *server) serverInfo() session.Implementation { return demoImplementation() }

package demo

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/version"
	"github.com/mcpoke/mcpoke/session"
)

// The demo server is dual-era: initialize selects a legacy version, and
// a request whose _meta carries a modern protocolVersion is served by
// that revision's rules, on its own: the version is checked, the result
// says resultType and who answered, and lists say how long they keep.

// serverInfo is who the demo is, in initialize and in modern results.
var serverInfo = session.Implementation{Name: ServerName, Title: "mcpoke demo server", Version: version.String()}

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
func eraAware(h session.Handler, cacheable bool) session.Handler {
	return func(ctx context.Context, in *session.Incoming) (any, error) {
		meta := mcp.ReadRequestMeta(in.Params)
		if meta.Version == "" {
			return h(ctx, in)
		}
		if !session.IsModern(meta.Version) || !slices.Contains(session.ModernVersions, meta.Version) {
			data, _ := json.Marshal(map[string]any{"supported": demoVersions(), "requested": meta.Version})
			return nil, &session.RPCError{Code: session.CodeUnsupportedProtocolVersion,
				Message: "Unsupported protocol version: " + meta.Version, Data: data}
		}
		res, err := h(ctx, in)
		if err != nil {
			return nil, err
		}
		return modernResult(res, cacheable)
	}
}

// modernResult adds what every modern result carries to res.
func modernResult(res any, cacheable bool) (json.RawMessage, error) {
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
	info, _ := json.Marshal(serverInfo)
	meta[session.MetaServerInfo] = info
	obj["_meta"], _ = json.Marshal(meta)
	if cacheable {
		obj["ttlMs"], _ = json.Marshal(listTTLms)
		obj["cacheScope"] = json.RawMessage(`"public"`)
	}
	return json.Marshal(obj)
}

// discoverResult is the demo's answer to server/discover.
type discoverResult struct {
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      map[string]any `json:"capabilities"`
	Instructions      string         `json:"instructions"`
}

// discover answers server/discover: every version the demo speaks, its
// capabilities and who it is (added by eraAware, like any modern result).
// A discover without _meta is answered the modern way too: only a modern
// client sends it.
func (srv *server) discover(context.Context, *session.Incoming) (any, error) {
	return modernResult(discoverResult{SupportedVersions: demoVersions(), Capabilities: capabilities(), Instructions: instructions}, true)
}

// capabilities are the same in both eras.
func capabilities() map[string]any { return map[string]any{"tools": map[string]any{}} }

package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// RequestMeta is what a modern request declares in its _meta. A legacy
// request has none of it: Version is "".
type RequestMeta struct {
	Version      string                  `json:"io.modelcontextprotocol/protocolVersion"`
	Capabilities json.RawMessage         `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo   *session.Implementation `json:"io.modelcontextprotocol/clientInfo"`
	LogLevel     string                  `json:"io.modelcontextprotocol/logLevel"`
}

// ReadRequestMeta reads the modern fields of a request's params._meta;
// zero when there are none (a legacy request) or params are not an object.
func ReadRequestMeta(params json.RawMessage) RequestMeta {
	var p struct {
		Meta RequestMeta `json:"_meta"`
	}
	if !bytes.Contains(params, []byte(session.MetaProtocolVersion)) || json.Unmarshal(params, &p) != nil {
		return RequestMeta{}
	}
	return p.Meta
}

// ResultMeta is what a result says about itself besides its payload:
// resultType (always, "complete" when absent), and in the modern era the
// server's identity and, for lists and reads, how long it may be cached.
type ResultMeta struct {
	// Type is resultType: "complete" when the server sent none.
	Type string
	// ServerInfo is _meta io.modelcontextprotocol/serverInfo, if sent.
	ServerInfo *session.Implementation
	// TTL is ttlMs, if sent: how long the result may be reused; CacheScope
	// is "public" or "private", if sent.
	TTL        *int64
	CacheScope string
}

// ReadResultMeta reads a result's resultType, serverInfo, ttlMs and
// cacheScope; what is absent or of the wrong type is left zero, since
// these fields only inform the display.
func ReadResultMeta(result json.RawMessage) ResultMeta {
	// Each member by its exact key, as the session reads resultType
	// (encoding/json would match struct fields without case), and
	// without copying the rest: a requestState may be megabytes.
	m := ResultMeta{Type: session.ResultComplete}
	var s string
	if json.Unmarshal(session.Member(result, "resultType"), &s) == nil && s != "" {
		m.Type = s
	}
	var ttl int64
	if raw := session.Member(result, "ttlMs"); raw != nil && string(raw) != "null" && json.Unmarshal(raw, &ttl) == nil {
		m.TTL = &ttl
	}
	if s = ""; json.Unmarshal(session.Member(result, "cacheScope"), &s) == nil {
		m.CacheScope = s
	}
	// A _meta or serverInfo of the wrong type must not hide the rest.
	var info session.Implementation
	if si := session.Member(session.Member(result, "_meta"), session.MetaServerInfo); si != nil && string(si) != "null" && json.Unmarshal(si, &info) == nil {
		m.ServerInfo = &info
	}
	return m
}

// Describe says the cache hints in one line, such as "ttl 60s, public";
// "" when the result gave none.
func (m ResultMeta) Describe() string {
	var out string
	if m.TTL != nil {
		out = fmt.Sprintf("ttl %dms", *m.TTL)
		if *m.TTL%1000 == 0 {
			out = fmt.Sprintf("ttl %ds", *m.TTL/1000)
		}
	}
	if m.CacheScope != "" {
		if out != "" {
			out += ", "
		}
		out += "cache " + m.CacheScope
	}
	return out
}

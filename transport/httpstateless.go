package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Protocol 2026-07-28 on Streamable HTTP, stateless: each request stands
// alone, with no session, no GET stream and no resumption; its POST
// mirrors the body's protocol version, method and name in headers, so
// that intermediaries can route it without reading the body. The session,
// which wrote the body, says what they are (Outgoing.Mirror); the
// transport reads them from the frame only when it was sent bare (Send).

// Header names of the stateless (2026-07-28) Streamable HTTP transport.
const (
	HeaderMethod      = "Mcp-Method"
	HeaderName        = "Mcp-Name"
	HeaderParamPrefix = "Mcp-Param-"
)

// metaProtocolVersion is the _meta key that declares a request of a stateless (2026-07-28 and later) version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// firstStatelessVersion is the first stateless protocol version; versions are dates,
// so they order as text.
const firstStatelessVersion = "2026-07-28"

// IsStatelessVersion reports whether a protocol version is 2026-07-28 or
// later, for the transport's own rules.
func IsStatelessVersion(v string) bool {
	return len(v) == len(firstStatelessVersion) && v[4] == '-' && v[7] == '-' && v >= firstStatelessVersion
}

// namedMethods are those whose Mcp-Name header mirrors params.name,
// params.uri or, for the tasks extension's methods, params.taskId.
var namedMethods = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
	"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}

// readOutgoing reads what a frame sent with no description is (Send):
// its id and method when it is one message, and what its POST mirrors
// in headers when it is a request of protocol 2026-07-28 or later. The
// session describes what it sends (SendOutgoing); this is for bare
// bytes. batch is how many messages the frame holds.
func readOutgoing(frame []byte) (o Outgoing, batch int) {
	o.Frame = frame
	envs := peekEnvelopes(frame)
	if len(envs) != 1 {
		return o, len(envs)
	}
	o.ID, o.Method = idKey(envs[0].ID), envs[0].Method
	if envs[0].isRequest() {
		o.Mirror = readMirror(frame, o.Method)
	}
	return o, 1
}

// readMirror reads what a request's POST must mirror in headers from its
// body: the protocol version in params._meta and, for named methods, the
// name or URI. nil for a request of an earlier version, which mirrors
// nothing.
func readMirror(frame []byte, method string) *Mirror {
	if !bytes.Contains(frame, []byte(metaProtocolVersion)) {
		return nil
	}
	var m struct {
		Params struct {
			Name *string `json:"name"`
			URI  *string `json:"uri"`
			Task *string `json:"taskId"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &m) != nil || !IsStatelessVersion(m.Params.Meta.Version) {
		return nil
	}
	h := &Mirror{Version: m.Params.Meta.Version}
	var name *string
	switch namedMethods[method] {
	case "name":
		name = m.Params.Name
	case "uri":
		name = m.Params.URI
	case "taskId":
		name = m.Params.Task
	}
	if name != nil {
		h.Name, h.HasName = *name, true
	}
	return h
}

// NamedParam is the member of params whose value a request of method
// mirrors in its Mcp-Name header ("name", "uri" or "taskId"), or "" when
// the method has none.
func NamedParam(method string) string { return namedMethods[method] }

// apply sets the headers on a POST of method; a nil Mirror sets none.
func (m *Mirror) apply(h http.Header, method string) {
	if m == nil {
		return
	}
	h.Set(HeaderProtocolVersion, m.Version)
	h.Set(HeaderMethod, method)
	if m.HasName {
		h.Set(HeaderName, EncodeHeaderValue(m.Name))
	}
	for name, v := range m.Params {
		h.Set(HeaderParamPrefix+name, EncodeHeaderValue(v))
	}
}

// describe lists the mirrored headers for the wire log, "" when there
// are none to show: "Mcp-Name: echo, Mcp-Param-Text: hi".
func (m *Mirror) describe() string {
	if m == nil {
		return ""
	}
	var parts []string
	if m.HasName {
		parts = append(parts, HeaderName+": "+EncodeHeaderValue(m.Name))
	}
	names := make([]string, 0, len(m.Params))
	for n := range m.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		parts = append(parts, HeaderParamPrefix+n+": "+EncodeHeaderValue(m.Params[n]))
	}
	return strings.Join(parts, ", ")
}

// EncodeHeaderValue is v as a header value of the stateless transport: as it
// is when it is plain visible ASCII (spaces and tabs inside allowed),
// else in the base64 sentinel form =?base64?...?= of its UTF-8 bytes,
// which is also used for a plain value that looks like that form.
func EncodeHeaderValue(v string) string {
	if headerSafe(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// DecodeHeaderValue undoes EncodeHeaderValue; ok is false for a sentinel
// whose base64 is invalid.
func DecodeHeaderValue(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-len("?=")])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// headerSafe: visible ASCII, space and tab (RFC 9110 field values), with
// no space or tab at either end, which a header would lose.
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return false
		}
	}
	return strings.TrimSpace(v) == v
}

// StreamBroke is the Why of a KindRequestError whose request was lost: its
// response stream broke before the answer, and the protocol version (2026-07-28)
// has no resumption. The request must be re-issued under a new id.
const StreamBroke = "stream broke"

// lost fails a 2026-07-28 request whose stream ended without its answer,
// unless we closed it (a cancel) or are closing.
func (h *HTTP) lost(ctx context.Context, st *requestStream, what string) {
	if st.answered.Load() || st.byUs.Load() || ctx.Err() != nil || h.ctx.Err() != nil {
		return
	}
	h.q.push(Message{Kind: wire.KindRequestError, ID: st.id, Why: StreamBroke,
		Data: []byte(fmt.Sprintf("request %s lost: %s, and protocol %s has no resumption; re-issue it under a new id", idKey(st.id), what, firstStatelessVersion))})
}

// HasRequestStreams implements RequestStreams: every request has its own
// response stream, until a fallback to the legacy HTTP+SSE transport.
func (h *HTTP) HasRequestStreams() bool { return h.fellBack.Load() == nil }

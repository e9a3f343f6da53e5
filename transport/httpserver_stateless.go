package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// The stateless leg of HTTPServer (protocol 2026-07-28): each POST carries
// one request that stands alone, with no session. Its answer is one JSON
// body, or an SSE stream once the request has something to say before the
// result (progress); nothing is kept for resumption. A client that closes
// the response has cancelled the request: the peer's Recv ends with
// ErrStreamClosed, and the peer stops the handler.

// StatelessVersions are the protocol versions the stateless leg speaks.
var StatelessVersions = []string{firstStatelessVersion}

// ErrStreamClosed ends the conn of one 2026-07-28 request when the client
// closed that request's response stream: under protocol 2026-07-28 that
// is the request's cancellation.
var ErrStreamClosed = errors.New("the client closed the request's response stream")

// statelessPost is the part of a stateless POST the server reads.
type statelessPost struct {
	id, method string
	version    string // params._meta's protocolVersion
	name       string // params.name or params.uri, for Mcp-Name
	hasName    bool
	token      string // params._meta.progressToken, raw
	// hasMeta and hasCaps: params._meta is an object, and it holds
	// io.modelcontextprotocol/clientCapabilities (required with the
	// version in every 2026-07-28 request).
	hasMeta, hasCaps bool
}

// readStatelessPost reads what validating and routing a stateless POST need.
func readStatelessPost(frame []byte) (statelessPost, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name *string `json:"name"`
			URI  *string `json:"uri"`
			Task *string `json:"taskId"`
			Meta *struct {
				Version       string          `json:"io.modelcontextprotocol/protocolVersion"`
				Capabilities  json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &m) != nil {
		return statelessPost{}, false
	}
	p := statelessPost{id: string(bytes.TrimSpace(m.ID)), method: m.Method}
	if meta := m.Params.Meta; meta != nil {
		p.hasMeta = true
		p.version, p.token = meta.Version, string(bytes.TrimSpace(meta.ProgressToken))
		caps := bytes.TrimSpace(meta.Capabilities)
		p.hasCaps = len(caps) > 0 && caps[0] == '{'
	}
	switch namedMethods[m.Method] {
	case "name":
		if m.Params.Name != nil {
			p.name, p.hasName = *m.Params.Name, true
		}
	case "uri":
		if m.Params.URI != nil {
			p.name, p.hasName = *m.Params.URI, true
		}
	case "taskId":
		if m.Params.Task != nil {
			p.name, p.hasName = *m.Params.Task, true
		}
	}
	return p, true
}

// isStatelessPost reports whether a POST is of the stateless era: by its
// MCP-Protocol-Version header, or, with no session, by the version in its
// body's _meta (whose header is then checked, and found wanting).
func isStatelessPost(r *http.Request, msgs []json.RawMessage) bool {
	if v := r.Header.Get(HeaderProtocolVersion); IsStatelessVersion(v) || unknownVersion(v) && r.Header.Get(HeaderSessionID) == "" {
		return true // an unknown version gets the stateless refusal, which lists every version
	}
	if r.Header.Get(HeaderSessionID) != "" || len(msgs) != 1 || !bytes.Contains(msgs[0], []byte(metaProtocolVersion)) {
		return false
	}
	p, ok := readStatelessPost(msgs[0])
	return ok && IsStatelessVersion(p.version)
}

// postStateless answers one stateless POST.
func (h *HTTPServer) postStateless(w http.ResponseWriter, r *http.Request, msgs []json.RawMessage, batch bool) {
	if batch || len(msgs) != 1 {
		httpRPCError(w, http.StatusBadRequest, codeInvalidRequest, "protocol 2026-07-28 takes one message per POST, not a batch")
		return
	}
	frame := msgs[0]
	p, ok := readStatelessPost(frame)
	if !ok {
		httpRPCError(w, http.StatusBadRequest, codeInvalidRequest, "invalid request: not a JSON-RPC message")
		return
	}
	if p.id == "" || p.id == "null" {
		// Notifications: none is defined from client to server over HTTP in
		// this era; a cancel here stops nothing (the stream is the cancel).
		if p.method == "notifications/cancelled" && h.cfg.Logger != nil {
			h.cfg.Logger.Info("notifications/cancelled POSTed under protocol 2026-07-28: ignored; over Streamable HTTP closing the request's stream is the cancel")
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !validRequestID(p.id) {
		httpRPCError(w, http.StatusBadRequest, codeInvalidRequest, "invalid request id "+p.id+": use a string or a number")
		return
	}
	id := json.RawMessage(p.id)
	if hv := r.Header.Get(HeaderProtocolVersion); unknownVersion(hv) || IsStatelessVersion(hv) && !slices.Contains(StatelessVersions, hv) {
		if p.version != "" && p.version != hv {
			h.refuseMismatch(w, id, p, "MCP-Protocol-Version header "+hv+" does not match the body's "+p.version)
			return
		}
		h.refuseVersion(w, id, hv)
		return
	}
	if why := missingMeta(p); why != "" {
		// The body itself is wrong, whatever the headers say: invalid
		// params, as on any transport.
		writeRPCError(w, http.StatusBadRequest, id, codeInvalidParams, "Invalid params: "+why, nil)
		return
	}
	why := headerMismatch(r, p)
	if why == "" && h.cfg.CheckParamHeaders != nil {
		params, bad := paramHeaders(r.Header)
		err := h.cfg.CheckParamHeaders(frame, params)
		switch {
		case bad != "":
			why = bad
		case err != nil:
			why = err.Error()
		}
	}
	if why != "" {
		h.refuseMismatch(w, id, p, why)
		return
	}
	if !slices.Contains(StatelessVersions, p.version) || h.cfg.ServeStateless == nil {
		h.refuseVersion(w, id, p.version)
		return
	}
	x := newExchange(frame, p.id)
	peer := h.cfg.ServeStateless(x)
	defer peer.Close()
	sse, _ := accepts(r.Header.Get("Accept"))
	h.answerStateless(w, r, x, sse)
}

// JSON-RPC codes of 2026-07-28 the server answers with itself.
const (
	codeInvalidParams      = -32602
	codeMethodNotFound     = -32601
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
)

// unknownVersion reports whether v, an MCP-Protocol-Version header, names
// a version of neither era: "" (2025-03-26 by the spec's default) is known.
func unknownVersion(v string) bool {
	return v != "" && !IsStatelessVersion(v) && !slices.Contains(StreamableHTTPVersions, v)
}

// missingMeta says which field every 2026-07-28 request's _meta must carry is
// missing, "" when none is.
func missingMeta(p statelessPost) string {
	switch {
	case !p.hasMeta:
		return "params._meta is missing; every request of protocol " + firstStatelessVersion +
			" carries io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in it"
	case p.version == "":
		return "params._meta has no io.modelcontextprotocol/protocolVersion"
	case !p.hasCaps:
		return "params._meta has no io.modelcontextprotocol/clientCapabilities object (send {} to declare none)"
	}
	return ""
}

// refuseMismatch answers HeaderMismatch (-32020, 400).
func (h *HTTPServer) refuseMismatch(w http.ResponseWriter, id json.RawMessage, p statelessPost, why string) {
	if h.cfg.Logger != nil {
		h.cfg.Logger.Info("refused a request: Header mismatch", "id", p.id, "method", p.method, "why", why)
	}
	writeRPCError(w, http.StatusBadRequest, id, codeHeaderMismatch, "Header mismatch: "+why, nil)
}

// refuseVersion answers UnsupportedProtocolVersion (-32022, 400) with the
// versions this server speaks, stateless first, and the one requested.
func (h *HTTPServer) refuseVersion(w http.ResponseWriter, id json.RawMessage, requested string) {
	supported := slices.Clone(StreamableHTTPVersions)
	if h.cfg.ServeStateless != nil {
		supported = append(slices.Clone(StatelessVersions), supported...)
	}
	writeRPCError(w, http.StatusBadRequest, id, codeUnsupportedVersion,
		"Unsupported protocol version: "+requested+"; this server speaks "+strings.Join(supported, ", "),
		map[string]any{"supported": supported, "requested": requested})
}

// statelessErrorStatus is the HTTP status of a 2026-07-28 request's JSON-RPC
// error: 404 for a method the server does not implement, 400 for the
// protocol's own refusals, 200 for the rest, which are answers.
func statelessErrorStatus(code int) int {
	switch code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeHeaderMismatch, codeMissingCapability, codeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// headerMismatch says how a stateless POST's headers fail to mirror its
// body, "" when they match: MCP-Protocol-Version, Mcp-Method and, for
// tools/call, prompts/get and resources/read, Mcp-Name (decoded).
func headerMismatch(r *http.Request, p statelessPost) string {
	hv := r.Header.Get(HeaderProtocolVersion)
	switch {
	case hv == "":
		return "the MCP-Protocol-Version header is missing"
	case p.version == "":
		return "the body's _meta has no io.modelcontextprotocol/protocolVersion"
	case hv != p.version:
		return "MCP-Protocol-Version header " + hv + " does not match the body's " + p.version
	}
	switch hm := r.Header.Get(HeaderMethod); {
	case hm == "":
		return "the Mcp-Method header is missing"
	case hm != p.method:
		return "Mcp-Method header " + hm + " does not match the body's " + p.method
	}
	if _, named := namedMethods[p.method]; named {
		raw := r.Header.Get(HeaderName)
		name, ok := DecodeHeaderValue(raw)
		switch {
		case raw == "" && p.hasName && p.name != "":
			return "the Mcp-Name header is missing"
		case !ok:
			return "the Mcp-Name header's base64 is invalid"
		case name != p.name:
			return "Mcp-Name header " + raw + " does not match the body's " + p.name
		}
	}
	return ""
}

// writeRPCError answers with a JSON-RPC error for request id.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// answerStateless writes what the peer sends for the request: a JSON body
// with the response, or once a notification comes first and the client
// takes SSE, a stream of them ending with the response. A client that
// goes away cancels the request.
func (h *HTTPServer) answerStateless(w http.ResponseWriter, r *http.Request, x *exchange, sseOK bool) {
	rc := http.NewResponseController(w)
	streaming := false
	keepAlive := time.NewTicker(h.cfg.KeepAlive)
	defer keepAlive.Stop()
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(h.cfg.WriteTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for {
		select {
		case frame := <-x.out:
			env, _ := parseRouting(frame)
			if env.isResponse() && env.id == x.id {
				if streaming {
					write(appendSSEEvent(nil, "", "", frame, 0))
				} else {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(responseStatus(frame))
					_, _ = w.Write(frame)
				}
				x.answered()
				return
			}
			if env.method == "" || !sseOK {
				continue // only the request's notifications, and only on a stream
			}
			if !streaming {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("Cache-Control", "no-cache, no-transform")
				w.Header().Set("X-Accel-Buffering", "no")
				w.WriteHeader(http.StatusOK)
				streaming = true
			}
			if !write(appendSSEEvent(nil, "", "", frame, 0)) {
				x.clientGone()
				return
			}
		case <-keepAlive.C:
			if streaming && !write([]byte(":\n\n")) {
				x.clientGone()
				return
			}
		case <-r.Context().Done():
			x.clientGone()
			return
		case <-h.stop:
			return
		case <-x.done:
			// The peer ended without answering (the server is closing).
			if !streaming {
				httpError(w, http.StatusServiceUnavailable, "the server ended the request without an answer")
			}
			return
		}
	}
}

// exchange is the Conn of one 2026-07-28 request: Recv yields the request,
// then waits until the client goes away (ErrStreamClosed) or the
// exchange is closed; Send hands frames to the HTTP response.
type exchange struct {
	frame []byte
	id    string
	out   chan []byte

	mu    sync.Mutex
	taken bool

	gone     chan struct{} // the client closed the response
	done     chan struct{} // Close
	goneOnce sync.Once
	doneOnce sync.Once
}

func newExchange(frame []byte, id string) *exchange {
	return &exchange{frame: frame, id: id, out: make(chan []byte, 64), gone: make(chan struct{}), done: make(chan struct{})}
}

// Recv implements Conn.
func (x *exchange) Recv() (Message, error) {
	x.mu.Lock()
	first := !x.taken
	x.taken = true
	x.mu.Unlock()
	if first {
		return Message{Kind: wire.KindFrame, Data: x.frame}, nil
	}
	// The client's leaving wins over a Close that follows it: it is the
	// cancel the peer must see.
	select {
	case <-x.gone:
		return Message{}, ErrStreamClosed
	default:
	}
	select {
	case <-x.gone:
		return Message{}, ErrStreamClosed
	case <-x.done:
		return Message{}, ErrClosed
	}
}

// Send implements Conn. It waits while the response writer is behind,
// until the client leaves.
func (x *exchange) Send(frame []byte) error {
	select {
	case x.out <- bytes.Clone(frame):
		return nil
	case <-x.gone:
		return ErrStreamClosed
	case <-x.done:
		return ErrClosed
	}
}

// Close implements Conn.
func (x *exchange) Close() error {
	x.doneOnce.Do(func() { close(x.done) })
	return nil
}

func (x *exchange) clientGone() { x.goneOnce.Do(func() { close(x.gone) }) }

// answered ends the exchange once its response was written.
func (x *exchange) answered() { _ = x.Close() }

// paramHeaders collects a request's Mcp-Param headers by lower-case name,
// values decoded; bad says which one could not be decoded.
func paramHeaders(h http.Header) (params map[string]string, bad string) {
	params = map[string]string{}
	for key, vs := range h {
		name, ok := strings.CutPrefix(strings.ToLower(key), strings.ToLower(HeaderParamPrefix))
		if !ok || len(vs) == 0 {
			continue
		}
		v, ok := DecodeHeaderValue(vs[0])
		if !ok {
			return nil, "the " + key + " header's base64 is invalid"
		}
		params[name] = v
	}
	return params, ""
}

// responseStatus is the HTTP status of a 2026-07-28 request's response sent
// as a JSON body: statelessErrorStatus of its error, 200 for a result.
func responseStatus(frame []byte) int {
	if !bytes.Contains(frame, []byte(`"error"`)) {
		return http.StatusOK
	}
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(frame, &m) != nil || m.Error == nil {
		return http.StatusOK
	}
	return statelessErrorStatus(m.Error.Code)
}

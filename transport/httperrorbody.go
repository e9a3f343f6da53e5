package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// errorBodyMax bounds what is read of a non-2xx answer's body.
const errorBodyMax = 64 << 10

// errorBodyAnswers delivers the JSON-RPC error in the body of a non-2xx
// answer to request st, and reports whether it did: 2026-07-28 servers answer
// an unsupported version, a header mismatch or an unknown method with
// 400 or 404 and such a body, whose code the session needs. An error
// naming st's id is delivered as the frame it is; one with a null id
// (the server could not read the request's) fails st with the error
// attached. During the legacy probe (initialize, ready to fall back to
// HTTP+SSE) only the modern codes count, as the spec's fallback says.
func (h *HTTP) errorBodyAnswers(st *requestStream, body []byte, probe bool) bool {
	if st == nil {
		return false
	}
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code json.Number `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &m) != nil || m.Error == nil {
		return false
	}
	if code, err := m.Error.Code.Int64(); probe && (err != nil || code > -32020 || code < -32099) {
		return false
	}
	switch {
	case idKey(m.ID) == idKey(st.id):
		h.deliver(st, bytes.TrimSpace(body))
		return true
	case !hasID(m.ID):
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		h.q.push(Message{Kind: wire.KindRequestError, ID: st.id, RPCError: e.Error,
			Data: []byte(fmt.Sprintf("the server refused request %s with an error that names no id: %s", idKey(st.id), clipBody(body)))})
		return true
	}
	return false
}

// clipBody is the start of a body, for a message.
func clipBody(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

package transport

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
)

// routing is the little of a JSON-RPC message the HTTP server reads to
// route it: never the result, the arguments or anything else.
type routing struct {
	// id is the raw JSON id, trimmed: its type and spelling are kept, so
	// a response for 1 never goes to the stream of request "1".
	id     string
	method string
	// token is params._meta.progressToken of a request, or
	// params.progressToken of a progress notification, raw JSON.
	token string
	// version is params.protocolVersion of an initialize request.
	version string
	// cancels is params.requestId of notifications/cancelled, raw JSON.
	cancels string
}

func (e routing) isRequest() bool      { return e.method != "" && e.id != "" }
func (e routing) isNotification() bool { return e.method != "" && e.id == "" }
func (e routing) isResponse() bool     { return e.method == "" && e.id != "" }

// errNotJSONRPC: a POSTed value is not a request, notification or response.
var errNotJSONRPC = errors.New("not a JSON-RPC message: an object with a method or an id is expected")

// parseRouting reads one message's routing fields.
func parseRouting(frame []byte) (routing, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(frame, &m); err != nil {
		return routing{}, err
	}
	e := routing{id: string(bytes.TrimSpace(m.ID)), method: m.Method}
	if e.method == "" && e.id == "" {
		return e, errNotJSONRPC
	}
	if len(m.Params) > 0 && m.Params[0] == '{' {
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
			ProgressToken   json.RawMessage `json:"progressToken"`
			ProtocolVersion string          `json:"protocolVersion"`
			RequestID       json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			tok := p.Meta.ProgressToken
			if e.method == "notifications/progress" {
				tok = p.ProgressToken
			}
			e.token = string(bytes.TrimSpace(tok))
			if e.token == "null" {
				e.token = ""
			}
			e.version = p.ProtocolVersion
			if e.method == "notifications/cancelled" {
				e.cancels = string(bytes.TrimSpace(p.RequestID))
			}
		}
	}
	return e, nil
}

// validRequestID reports whether a request id is a string or a number, as
// JSON-RPC asks; any other id could not be routed back to its stream.
func validRequestID(id string) bool {
	if id == "" || id == "null" {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// splitBatch returns the messages of a POST body: one, or the elements of
// a batch (allowed by protocol 2025-03-26).
func splitBatch(body []byte) (msgs []json.RawMessage, batch bool, err error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		if err := json.Unmarshal(body, &msgs); err != nil {
			return nil, true, err
		}
		if len(msgs) == 0 {
			return nil, true, errors.New("empty batch")
		}
		return msgs, true, nil
	}
	if !jsonscan.Valid(body) {
		return nil, false, errors.New("body is not valid JSON")
	}
	return []json.RawMessage{body}, false, nil
}

package transport

import (
	"bytes"
	"encoding/json"
)

// envelope is the least of a JSON-RPC message an HTTP transport must know:
// which request a POST carries (its stream is that request's channel) and
// which inbound message answers it. Everything else stays bytes.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// peekEnvelopes returns the envelopes of a frame, one per message of a
// batch; nothing for a frame that is not a JSON-RPC object or array.
func peekEnvelopes(frame []byte) []envelope {
	b := bytes.TrimSpace(frame)
	if len(b) == 0 {
		return nil
	}
	if b[0] == '[' {
		var batch []envelope
		if json.Unmarshal(b, &batch) != nil {
			return nil
		}
		return batch
	}
	var e envelope
	if b[0] != '{' || json.Unmarshal(b, &e) != nil {
		return nil
	}
	return []envelope{e}
}

// isRequest: a method and an id (null is not an id we send).
func (e envelope) isRequest() bool { return e.Method != "" && hasID(e.ID) }

// isResponse: an id and no method.
func (e envelope) isResponse() bool {
	return e.Method == "" && hasID(e.ID) && (e.Result != nil || e.Error != nil)
}

func hasID(id json.RawMessage) bool { return len(id) > 0 && string(id) != "null" }

// idKey is the map key of a raw id: its exact JSON text, so 3 and "3"
// stay apart.
func idKey(id []byte) string { return string(bytes.TrimSpace(id)) }

// negotiatedVersion reads protocolVersion from an initialize result.
func negotiatedVersion(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(result, &r)
	return r.ProtocolVersion
}

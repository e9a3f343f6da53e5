package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
)

// parseEnvelope splits one JSON-RPC message into its members without
// copying: ID, Params, Result and Error are sub-slices of frame, which the
// session owns. Hand-written because every frame goes through here and
// encoding/json spends a dozen allocations on an envelope. frame must be
// valid JSON (checked by the caller); keys with escapes take the slow path.
func parseEnvelope(frame []byte, m *wireMessage) error {
	i := jsonscan.SkipSpace(frame, 0)
	if i >= len(frame) || frame[i] != '{' {
		return errNotObject
	}
	i = jsonscan.SkipSpace(frame, i+1)
	if i < len(frame) && frame[i] == '}' {
		return nil
	}
	for i < len(frame) {
		if frame[i] != '"' {
			return errNotObject
		}
		keyEnd, escaped := jsonscan.SkipString(frame, i)
		if escaped {
			return parseEnvelopeSlow(frame, m)
		}
		key := frame[i+1 : keyEnd-1]
		i = jsonscan.SkipSpace(frame, keyEnd)
		if i >= len(frame) || frame[i] != ':' {
			return errNotObject
		}
		i = jsonscan.SkipSpace(frame, i+1)
		end := jsonscan.SkipValue(frame, i)
		val := frame[i:end:end]
		switch string(key) {
		case "jsonrpc":
			m.JSONRPC = "2.0"
			if !bytes.Equal(val, []byte(`"2.0"`)) {
				m.JSONRPC = string(val)
			}
		case "id":
			m.ID = val
		case "method":
			if len(val) < 2 || val[0] != '"' {
				return errors.New("method is not a string")
			}
			if bytes.IndexByte(val, '\\') >= 0 || !utf8.Valid(val) {
				var method string // not &m.Method: that would put m on the heap
				if err := json.Unmarshal(val, &method); err != nil {
					return err
				}
				m.Method = method
			} else {
				m.Method = internMethod(val[1 : len(val)-1])
			}
		case "params":
			m.Params = val
		case "result":
			m.Result = val
		case "error":
			m.Error = val
		}
		i = jsonscan.SkipSpace(frame, end)
		if i < len(frame) && frame[i] == ',' {
			i = jsonscan.SkipSpace(frame, i+1)
			continue
		}
		if i < len(frame) && frame[i] == '}' {
			return nil
		}
		return errNotObject
	}
	return errNotObject
}

var errNotObject = errors.New("not a JSON object")

// parseEnvelopeSlow is encoding/json's reading, into a copy: handing m
// itself to json.Unmarshal would put every message on the heap.
func parseEnvelopeSlow(frame []byte, m *wireMessage) error {
	var tmp wireMessage
	err := json.Unmarshal(frame, &tmp)
	*m = tmp
	return err
}

package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// parseEnvelope splits one JSON-RPC message into its members without
// copying: ID, Params, Result and Error are sub-slices of frame, which the
// session owns. Hand-written because every frame goes through here and
// encoding/json spends a dozen allocations on an envelope. frame must be
// valid JSON (checked by the caller); keys with escapes take the slow path.
func parseEnvelope(frame []byte, m *wireMessage) error {
	i := skipSpace(frame, 0)
	if i >= len(frame) || frame[i] != '{' {
		return errNotObject
	}
	i = skipSpace(frame, i+1)
	if i < len(frame) && frame[i] == '}' {
		return nil
	}
	for i < len(frame) {
		if frame[i] != '"' {
			return errNotObject
		}
		keyEnd, escaped := skipString(frame, i)
		if escaped {
			return parseEnvelopeSlow(frame, m)
		}
		key := frame[i+1 : keyEnd-1]
		i = skipSpace(frame, keyEnd)
		if i >= len(frame) || frame[i] != ':' {
			return errNotObject
		}
		i = skipSpace(frame, i+1)
		end := skipValue(frame, i)
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
		i = skipSpace(frame, end)
		if i < len(frame) && frame[i] == ',' {
			i = skipSpace(frame, i+1)
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

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] and
// whether it holds escapes.
func skipString(b []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		end, _ := skipString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := skipString(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

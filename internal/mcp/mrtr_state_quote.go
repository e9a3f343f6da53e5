package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/session"
)

// A requestState is opaque and may be megabytes: it is echoed byte for
// byte in the next round and never kept or shown whole after that.
// Reports quote its head and tail, with its full size.

// StateQuoteEdge is how many bytes of a requestState's head and of its
// tail a quote keeps.
const StateQuoteEdge = 64

// StateSize is the length in bytes of the string the JSON string raw
// holds, counted without decoding it (no copy of a huge state); -1 when
// raw is not a JSON string.
func StateSize(raw json.RawMessage) int {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return -1
	}
	n := 0
	body := raw[1 : len(raw)-1]
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			n++
			continue
		}
		if i+1 >= len(body) {
			return -1
		}
		i++
		if body[i] != 'u' {
			n++
			continue
		}
		if i+4 >= len(body) {
			return -1
		}
		u, err := strconv.ParseUint(string(body[i+1:i+5]), 16, 32)
		if err != nil {
			return -1
		}
		r := rune(u)
		i += 4
		switch {
		case r >= 0xD800 && r < 0xDC00 && lowSurrogateAt(body, i+1):
			n += 4 // a surrogate pair: one rune of four bytes
			i += 6
		case r >= 0xD800 && r < 0xE000:
			n += 3 // a lone surrogate decodes to U+FFFD
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// lowSurrogateAt reports whether body holds a \u escape of a low
// surrogate at i: only that pairs with a high one before it (anything
// else leaves the high one alone, U+FFFD, as encoding/json decodes it).
func lowSurrogateAt(body []byte, i int) bool {
	if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
		return false
	}
	u, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 32)
	return err == nil && u >= 0xDC00 && u < 0xE000
}

// QuoteState is a bounded quote of the JSON string raw: whole when
// short, else its first and last StateQuoteEdge bytes (as sent, escapes
// and all) around the full size. "" when raw is nil.
func QuoteState(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	size := StateSize(raw)
	var s string
	if len(raw) <= 2*StateQuoteEdge+2 && json.Unmarshal(raw, &s) == nil {
		return s
	}
	body := raw
	if size >= 0 {
		body = raw[1 : len(raw)-1]
	}
	head, tail := string(body[:min(StateQuoteEdge, len(body))]), string(body[max(len(body)-StateQuoteEdge, 0):])
	return fmt.Sprintf("%s…[%d bytes in all]…%s", head, size, tail)
}

// ElideState returns body (a request's params or result) with a long
// top-level requestState replaced by its quote (QuoteState); body itself
// when it has none, or a short one. The copy shares nothing with body, so
// that body can be let go.
func ElideState(body json.RawMessage) json.RawMessage {
	off, state := stateMember(body)
	if len(state) <= 2*StateQuoteEdge+2 || state[0] != '"' {
		return body
	}
	quote, _ := json.Marshal(QuoteState(state))
	// Splice the quote where the state is: no copy of the state, and the
	// rest of body as it was.
	out := make([]byte, 0, len(body)-len(state)+len(quote))
	return append(append(append(out, body[:off]...), quote...), body[off+len(state):]...)
}

// stateMember finds the top-level requestState of body (the last one, as
// encoding/json reads duplicates) and its offset, without copying it;
// nil when there is none.
func stateMember(body []byte) (int, []byte) {
	m, ok := session.ReadMembers(body)
	off, found := 0, []byte(nil)
	for ok {
		k, escaped, more := m.NextKey()
		if !more {
			break
		}
		at, v := m.At(), m.Value()
		name := string(k)
		if escaped && json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &name) != nil {
			continue
		}
		if name == "requestState" && len(v) > 0 {
			off, found = at, v
		}
	}
	return off, found
}

package proxy

import (
	"encoding/json"
	"strings"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// Parsed is a record's frame read once for every observer that needs
// its messages (the request table, the card, attach's history, the
// faults): the recorder decodes each frame one time, not once per
// observer, which at a small frame's size is most of what the records
// cost. An observer has it for the length of its call: the recorder
// reads the next frame into the same room.
type Parsed struct{ ms []message }

// Parse reads the messages of r; a record that is no frame has none.
func Parse(r wire.Record) Parsed { return parseInto(r, nil) }

// parseInto is Parse reading into buf's room: the recorder reads every
// frame into one buffer, so that a frame's messages cost no allocation.
// Its observers see them only during their call, and keep copies.
func parseInto(r wire.Record, buf []message) Parsed {
	if r.Kind != wire.KindFrame {
		return Parsed{}
	}
	return Parsed{validMessages(r.Data, buf[:0])}
}

// message has what the proxy's observers read of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Error  json.RawMessage `json:"error"`
	// p is Params read, for a message with a method (a response's result
	// is never read).
	p msgParams
}

// msgParams has the params fields the observers read.
type msgParams struct {
	RequestID       json.RawMessage `json:"requestId"`
	Reason          string          `json:"reason"`
	ProgressToken   json.RawMessage `json:"progressToken"`
	ProtocolVersion string          `json:"protocolVersion"`
	ClientInfo      *cardImpl       `json:"clientInfo"`
	// A tools/call's tool and arguments (the card's repeated calls).
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		// The 2026-07-28 era says on each request what initialize said.
		Version    string    `json:"io.modelcontextprotocol/protocolVersion"`
		ClientInfo *cardImpl `json:"io.modelcontextprotocol/clientInfo"`
	} `json:"_meta"`
}

type cardImpl struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (i *cardImpl) String() string {
	return strings.TrimSpace(i.Name + " " + i.Version)
}

// messages reads a frame: one message, or a batch's; a frame that is
// not JSON has none. Fields of another type than expected leave the
// others read, as encoding/json reads them.
func messages(frame []byte) []message {
	if !json.Valid(frame) {
		return nil
	}
	return validMessages(frame, nil)
}

// validMessages is messages for a frame known to be valid JSON (a
// KindFrame record's), appended to ms (empty, maybe with room): it reads
// the fields the observers need by hand, in one pass, and gives a field
// it cannot read so (an escaped or non-ASCII key, a key of another case)
// to encoding/json.
func validMessages(frame []byte, ms []message) []message {
	i := 0
	for i < len(frame) && (frame[i] == ' ' || frame[i] == '\t' || frame[i] == '\r') {
		i++
	}
	if i < len(frame) && frame[i] == '[' {
		for j := jsonscan.SkipSpace(frame, i+1); j < len(frame) && frame[j] != ']'; {
			end := jsonscan.SkipValue(frame, j)
			ms = append(ms, message{})
			readMessage(frame[j:end], &ms[len(ms)-1])
			j = jsonscan.SkipSpace(frame, end)
			if j < len(frame) && frame[j] == ',' {
				j = jsonscan.SkipSpace(frame, j+1)
			}
		}
		if ms == nil {
			ms = []message{} // an empty batch, as encoding/json reads it
		}
		return ms
	}
	ms = append(ms, message{})
	readMessage(frame[i:], &ms[0])
	return ms
}

// readMessage reads one message (a valid JSON value) into m.
func readMessage(v []byte, m *message) {
	if !readEnvelope(v, m) {
		*m = message{}
		messagesStd(v, m)
		return
	}
	if m.Method != "" && len(m.Params) > 0 && !readParams(m.Params, &m.p) {
		m.p = msgParams{}
		json.Unmarshal(m.Params, &m.p) // a partial read is enough
	}
}

// messagesStd reads one message with encoding/json: the reading the hand
// reader agrees with, for what it leaves to it.
func messagesStd(v []byte, m *message) {
	json.Unmarshal(v, m) // fields of another type are left out
	if m.Method != "" && len(m.Params) > 0 {
		json.Unmarshal(m.Params, &m.p)
	}
}

// readEnvelope reads a message's id, method, params and error. false:
// a key needs encoding/json.
func readEnvelope(v []byte, m *message) bool {
	var o jsonscan.Members
	if !o.Start(v) {
		return true // not an object: no field is read
	}
	for o.Next() {
		switch string(o.Key) {
		case "id":
			m.ID = o.Val
		case "method":
			jsonscan.String(o.Val, &m.Method)
		case "params":
			m.Params = o.Val
		case "error":
			m.Error = o.Val
		default:
			if o.Odd || jsonscan.FoldsTo(o.Key, "id", "method", "params", "error") {
				return false
			}
		}
	}
	return true
}

// readParams reads the params fields the observers need; false: a key
// needs encoding/json.
func readParams(v []byte, p *msgParams) bool {
	var o jsonscan.Members
	if !o.Start(v) {
		return true
	}
	for o.Next() {
		switch string(o.Key) {
		case "requestId":
			p.RequestID = o.Val
		case "reason":
			jsonscan.String(o.Val, &p.Reason)
		case "progressToken":
			p.ProgressToken = o.Val
		case "protocolVersion":
			jsonscan.String(o.Val, &p.ProtocolVersion)
		case "clientInfo":
			if !readImpl(o.Val, &p.ClientInfo) {
				return false
			}
		case "name":
			jsonscan.String(o.Val, &p.Name)
		case "arguments":
			p.Arguments = o.Val
		case "_meta":
			if !readMeta(o.Val, p) {
				return false
			}
		default:
			if o.Odd || jsonscan.FoldsTo(o.Key, "requestId", "reason", "progressToken", "protocolVersion", "clientInfo", "name", "arguments", "_meta") {
				return false
			}
		}
	}
	return true
}

func readMeta(v []byte, p *msgParams) bool {
	var o jsonscan.Members
	if !o.Start(v) {
		return true // null, or another type: left as it was
	}
	for o.Next() {
		switch string(o.Key) {
		case "progressToken":
			p.Meta.ProgressToken = o.Val
		case "io.modelcontextprotocol/protocolVersion":
			jsonscan.String(o.Val, &p.Meta.Version)
		case "io.modelcontextprotocol/clientInfo":
			if !readImpl(o.Val, &p.Meta.ClientInfo) {
				return false
			}
		default:
			if o.Odd || jsonscan.FoldsTo(o.Key, "progressToken", "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientInfo") {
				return false
			}
		}
	}
	return true
}

// readImpl reads a clientInfo as encoding/json reads a *cardImpl: null
// clears it, any other value makes one (another type leaves it empty),
// and an object's fields go into the one already there.
func readImpl(v []byte, to **cardImpl) bool {
	if v[0] == 'n' {
		*to = nil
		return true
	}
	if *to == nil {
		*to = &cardImpl{}
	}
	var o jsonscan.Members
	if !o.Start(v) {
		return true
	}
	for o.Next() {
		switch string(o.Key) {
		case "name":
			jsonscan.String(o.Val, &(*to).Name)
		case "version":
			jsonscan.String(o.Val, &(*to).Version)
		default:
			if o.Odd || jsonscan.FoldsTo(o.Key, "name", "version") {
				return false
			}
		}
	}
	return true
}

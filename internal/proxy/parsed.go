package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Parsed is a record's frame read once for every observer that needs
// its messages (the request table, the card, attach's history, the
// faults): the recorder decodes each frame one time, not once per
// observer, which at a small frame's size is most of what the records
// cost.
type Parsed struct{ ms []message }

// Parse reads the messages of r; a record that is no frame has none.
func Parse(r wire.Record) Parsed {
	if r.Kind != wire.KindFrame {
		return Parsed{}
	}
	return Parsed{messages(r.Data)}
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

// messages reads a frame: one message, or a batch's. Fields of another
// type than expected leave the others read.
func messages(frame []byte) []message {
	frame = bytes.TrimLeft(frame, " \t\r")
	var ms []message
	if len(frame) > 0 && frame[0] == '[' {
		json.Unmarshal(frame, &ms)
	} else {
		var m message
		var typeErr *json.UnmarshalTypeError
		if err := json.Unmarshal(frame, &m); err != nil && !errors.As(err, &typeErr) {
			return nil
		}
		ms = []message{m}
	}
	for i := range ms {
		if m := &ms[i]; m.Method != "" && len(m.Params) > 0 {
			json.Unmarshal(m.Params, &m.p) // a partial read is enough
		}
	}
	return ms
}

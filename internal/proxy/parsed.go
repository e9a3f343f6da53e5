package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"unicode/utf8"

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
	return Parsed{validMessages(r.Data)}
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
	return validMessages(frame)
}

// validMessages is messages for a frame known to be valid JSON (a
// KindFrame record's): it reads the fields the observers need by hand,
// in one pass, and gives a field it cannot read so (an escaped or
// non-ASCII key, a key of another case) to encoding/json.
func validMessages(frame []byte) []message {
	i := 0
	for i < len(frame) && (frame[i] == ' ' || frame[i] == '\t' || frame[i] == '\r') {
		i++
	}
	if i < len(frame) && frame[i] == '[' {
		var ms []message
		for j := skipSpace(frame, i+1); j < len(frame) && frame[j] != ']'; {
			end := skipValue(frame, j)
			ms = append(ms, message{})
			readMessage(frame[j:end], &ms[len(ms)-1])
			j = skipSpace(frame, end)
			if j < len(frame) && frame[j] == ',' {
				j = skipSpace(frame, j+1)
			}
		}
		if ms == nil {
			ms = []message{} // an empty batch, as encoding/json reads it
		}
		return ms
	}
	ms := make([]message, 1)
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
	var o objectMembers
	if !o.start(v) {
		return true // not an object: no field is read
	}
	for o.next() {
		switch string(o.key) {
		case "id":
			m.ID = o.val
		case "method":
			readString(o.val, &m.Method)
		case "params":
			m.Params = o.val
		case "error":
			m.Error = o.val
		default:
			if o.odd || foldsTo(o.key, "id", "method", "params", "error") {
				return false
			}
		}
	}
	return true
}

// readParams reads the params fields the observers need; false: a key
// needs encoding/json.
func readParams(v []byte, p *msgParams) bool {
	var o objectMembers
	if !o.start(v) {
		return true
	}
	for o.next() {
		switch string(o.key) {
		case "requestId":
			p.RequestID = o.val
		case "reason":
			readString(o.val, &p.Reason)
		case "progressToken":
			p.ProgressToken = o.val
		case "protocolVersion":
			readString(o.val, &p.ProtocolVersion)
		case "clientInfo":
			if !readImpl(o.val, &p.ClientInfo) {
				return false
			}
		case "name":
			readString(o.val, &p.Name)
		case "arguments":
			p.Arguments = o.val
		case "_meta":
			if !readMeta(o.val, p) {
				return false
			}
		default:
			if o.odd || foldsTo(o.key, "requestId", "reason", "progressToken", "protocolVersion", "clientInfo", "name", "arguments", "_meta") {
				return false
			}
		}
	}
	return true
}

func readMeta(v []byte, p *msgParams) bool {
	var o objectMembers
	if !o.start(v) {
		return true // null, or another type: left as it was
	}
	for o.next() {
		switch string(o.key) {
		case "progressToken":
			p.Meta.ProgressToken = o.val
		case "io.modelcontextprotocol/protocolVersion":
			readString(o.val, &p.Meta.Version)
		case "io.modelcontextprotocol/clientInfo":
			if !readImpl(o.val, &p.Meta.ClientInfo) {
				return false
			}
		default:
			if o.odd || foldsTo(o.key, "progressToken", "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientInfo") {
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
	var o objectMembers
	if !o.start(v) {
		return true
	}
	for o.next() {
		switch string(o.key) {
		case "name":
			readString(o.val, &(*to).Name)
		case "version":
			readString(o.val, &(*to).Version)
		default:
			if o.odd || foldsTo(o.key, "name", "version") {
				return false
			}
		}
	}
	return true
}

// readString sets *s to a JSON string's value; another type (null, a
// number...) leaves it as it was.
func readString(v []byte, s *string) {
	if len(v) < 2 || v[0] != '"' {
		return
	}
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		*s = intern(raw)
		return
	}
	var t string
	if json.Unmarshal(v, &t) == nil {
		*s = t
	}
}

// objectMembers walks the members of a valid JSON object.
type objectMembers struct {
	b        []byte
	i        int
	key, val []byte
	// odd: the key has an escape or a byte past ASCII, so that it may
	// match a field only as encoding/json unescapes and folds it.
	odd bool
}

// start begins at v, false when v is not an object.
func (o *objectMembers) start(v []byte) bool {
	if len(v) == 0 || v[0] != '{' {
		return false
	}
	o.b, o.i = v, skipSpace(v, 1)
	return true
}

func (o *objectMembers) next() bool {
	b, i := o.b, o.i
	if i >= len(b) || b[i] != '"' {
		return false // the object's end
	}
	o.odd = false
	j := i + 1
	for ; j < len(b) && b[j] != '"'; j++ {
		if b[j] == '\\' {
			o.odd = true
			j++
		} else if b[j] >= utf8.RuneSelf {
			o.odd = true
		}
	}
	o.key = b[i+1 : min(j, len(b))]
	i = skipSpace(b, j+1)
	i = skipSpace(b, i+1) // the colon
	end := skipValue(b, i)
	o.val = b[i:end:end]
	i = skipSpace(b, end)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	o.i = i
	return true
}

// foldsTo says whether an ASCII key equals one of names but for case:
// encoding/json matches such a key, so it is left to it.
func foldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if len(n) == len(key) && asciiEqualFold(key, n) {
			return true
		}
	}
	return false
}

func asciiEqualFold(b []byte, s string) bool {
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
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

// skipString returns the index after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// Interned strings: the same few methods, tool names and client names
// come in every frame; reading them allocates once. Bounded, so that a
// host sending ever new names costs an allocation each, not memory.
var (
	internMu  sync.Mutex
	interned  = map[string]string{}
	maxIntern = 4096
)

const maxInternLen = 64

func intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInternLen {
		return string(b)
	}
	internMu.Lock()
	defer internMu.Unlock()
	if s, ok := interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(interned) < maxIntern {
		interned[s] = s
	}
	return s
}

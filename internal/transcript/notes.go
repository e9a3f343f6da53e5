package transcript

import (
	"bytes"
	"encoding/json"
)

// The notes a transcript line may carry.
const (
	noteLate      = "late"
	noteStray     = "stray"
	noteDuplicate = "duplicate"
	noteNoise     = "noise"
)

// maxTracked bounds how many requests notes remembers; the oldest are
// forgotten first, and traffic for them is then noted stray.
const maxTracked = 100_000

// requestState is what the wire has shown about one of our requests.
type requestState struct {
	cancelled bool
	answered  bool
	token     string // its progress token, if it asked for progress
}

// notes follows our requests and cancellations on the wire, to say what
// each inbound message is. Keys are ids as JSON text, so 3 and "3" stay
// different, as they are to the peer.
type notes struct {
	requests map[string]*requestState
	order    []string // ids in the order sent, for forgetting
	tokens   map[string]string
	limit    int
}

func newNotes() notes {
	return notes{requests: map[string]*requestState{}, tokens: map[string]string{}, limit: maxTracked}
}

// wireMsg has the fields that say what a JSON-RPC message is.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type idParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Token     json.RawMessage `json:"progressToken"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// sent records a frame we wrote: a request, or our cancellation of one.
func (n *notes) sent(frame []byte) {
	for _, m := range messages(frame) {
		switch {
		case m.Method != "" && m.ID != nil:
			id := compact(m.ID)
			r := n.track(id)
			var p idParams
			if json.Unmarshal(m.Params, &p) == nil && p.Meta.ProgressToken != nil {
				r.token = compact(p.Meta.ProgressToken)
				n.tokens[r.token] = id
			}
		case m.Method == "notifications/cancelled":
			var p idParams
			if json.Unmarshal(m.Params, &p) == nil && p.RequestID != nil {
				if r := n.requests[compact(p.RequestID)]; r != nil {
					r.cancelled = true
				}
			}
		}
	}
}

// received says what an inbound frame is; "" for ordinary traffic. A batch
// gets the first note any of its messages has.
func (n *notes) received(frame []byte) string {
	msgs := messages(frame)
	if msgs == nil {
		return noteNoise
	}
	for _, m := range msgs {
		if note := n.receivedOne(m); note != "" {
			return note
		}
	}
	return ""
}

func (n *notes) receivedOne(m wireMsg) string {
	switch {
	case m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil):
		r := n.requests[compact(m.ID)]
		switch {
		case r == nil:
			return noteStray
		case r.cancelled:
			return noteLate
		case r.answered:
			return noteDuplicate
		}
		r.answered = true
		return ""
	case m.Method == "notifications/progress":
		var p idParams
		if json.Unmarshal(m.Params, &p) != nil || p.Token == nil {
			return noteNoise
		}
		r := n.requests[n.tokens[compact(p.Token)]]
		switch {
		case r == nil:
			return noteStray
		case r.cancelled:
			return noteLate
		case r.answered:
			return noteStray
		}
		return ""
	case m.Method != "":
		return "" // a request or notification from the peer
	}
	return noteNoise
}

// track starts following request id, forgetting the oldest past the bound.
func (n *notes) track(id string) *requestState {
	if len(n.order) >= n.limit {
		old := n.order[0]
		n.order = n.order[1:]
		if r := n.requests[old]; r != nil && n.tokens[r.token] == old {
			delete(n.tokens, r.token)
		}
		delete(n.requests, old)
	}
	r := &requestState{}
	n.requests[id] = r
	n.order = append(n.order, id)
	return r
}

// messages decodes a frame into its messages: one, or a batch. nil means
// the frame is not JSON-RPC.
func messages(frame []byte) []wireMsg {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []wireMsg
		if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
			return nil
		}
		return batch
	}
	var m wireMsg
	if json.Unmarshal(trimmed, &m) != nil {
		return nil
	}
	return []wireMsg{m}
}

// compact returns JSON text without insignificant space, so ids compare
// as values of the same type: 3 and "3" stay apart.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

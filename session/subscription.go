package session

import (
	"bytes"
	"encoding/json"
	"time"
)

// serverCancelled takes a 2026-07-28 server's notifications/cancelled: legal
// only to end one of our subscriptions/listen requests, which then ends;
// anything else is flagged and ignored. Callers hold s.mu.
func (s *Session) serverCancelled(id ID, reason string, frame []byte) {
	r := s.table.outgoing(id.raw)
	if r != nil && r.info.Method == "subscriptions/listen" {
		if r.info.State == Pending {
			why := "the server ended the subscription (notifications/cancelled)"
			if reason != "" {
				why += ": " + reason
			}
			r.info.w().EndedByPeer = why
			s.setState(r, Completed, why)
		}
		return
	}
	what := "request " + id.String() + ", which mcpoke never sent"
	if r != nil {
		what = "request " + id.String() + " (" + r.info.Method + ")"
	}
	s.violate(r, ViolationServerCancel, []byte(id.raw), frame, "notifications/cancelled from the server for "+what+
		": in protocol "+s.era2026.version+" a server sends it only to end a subscriptions/listen stream; ignored")
}

// Listening is what a subscriptions/listen request has heard: the
// server's acknowledgement and the notifications tagged with its id.
type Listening struct {
	// Acknowledged is the filter the server agreed to honour, as sent;
	// nil until notifications/subscriptions/acknowledged came.
	Acknowledged json.RawMessage
	AckAt        time.Time
	// Count is how many notifications came on it, the acknowledgement
	// not included; Last keeps the newest maxSubscriptionNotes.
	Count int
	Last  []SubscriptionNote
}

// SubscriptionNote is one notification a subscription delivered.
type SubscriptionNote struct {
	At     time.Time
	Method string
	// Params is the start of the params, at most MaxKept bytes.
	Params json.RawMessage
}

// SubscriptionNotified reports a notification tagged with the id of one of our
// subscriptions/listen requests arrived (its acknowledgement included).
type SubscriptionNotified struct {
	Ref  Ref
	Note SubscriptionNote
}

func (SubscriptionNotified) event() {}

// maxSubscriptionNotes bounds the notifications a subscription keeps.
const maxSubscriptionNotes = 50

// subscriptionNote files a modern notification tagged with a
// subscriptionId under the subscriptions/listen request it names. One
// before the acknowledgement breaks the spec's order and is flagged.
// Callers hold no lock.
func (s *Session) subscriptionNote(method string, params json.RawMessage, frame []byte, at time.Time) {
	var p struct {
		Meta struct {
			ID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
		Notifications json.RawMessage `json:"notifications"`
	}
	if !bytes.Contains(params, []byte(MetaSubscriptionID)) || json.Unmarshal(params, &p) != nil || p.Meta.ID == nil {
		return
	}
	id, err := ParseID(p.Meta.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.era2026 == nil || err != nil {
		return
	}
	r := s.table.outgoing(id.raw)
	if r == nil || r.info.Method != "subscriptions/listen" {
		s.violate(r, ViolationSubscriptionUnknown, p.Meta.ID, frame, method+" names subscription "+id.String()+
			", which is no subscriptions/listen request of ours")
		return
	}
	sub := r.info.m().Listening
	if sub == nil {
		sub = &Listening{}
	} else {
		c := *sub // RequestInfo snapshots share the old one
		sub = &c
	}
	note := SubscriptionNote{At: at, Method: method, Params: kept(params)}
	if method == "notifications/subscriptions/acknowledged" {
		sub.Acknowledged, sub.AckAt = kept(p.Notifications), at
	} else {
		if sub.Acknowledged == nil {
			s.violate(r, ViolationSubscriptionBeforeAck, p.Meta.ID, frame, method+" on subscription "+id.String()+
				" before its acknowledgement, which must come first")
		}
		sub.Count++
		sub.Last = append(sub.Last[max(len(sub.Last)-maxSubscriptionNotes+1, 0):len(sub.Last):len(sub.Last)], note)
	}
	r.info.w().Listening = sub
	s.emit(SubscriptionNotified{Ref: r.info.Ref(), Note: note})
}

// flagServerRequest flags a request from a 2026-07-28 server: in 2026-07-28
// servers send none (they return input_required instead).
func (s *Session) flagServerRequest(m *wireMessage, frame []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.era2026 == nil {
		return
	}
	s.violate(nil, ViolationServerRequest, m.ID, frame, "the server sent a "+clipText(m.Method, 60)+" request: in protocol "+
		s.era2026.version+" servers send none (multi round-trip requests replaced them); answered all the same")
}

package rows

import (
	"encoding/json"

	"github.com/mcpoke/mcpoke/session"
)

// rowListenNotes is how many of a subscription's notifications a row
// keeps for the detail.
const rowListenNotes = 20

// Listening is what a subscriptions/listen row heard.
type Listening struct {
	Acked  bool
	Filter []byte // as acknowledged
	Count  int
	Last   []session.SubscriptionNote
}

// listened files a subscription's notification under its row.
func (s *Store) listened(e session.SubscriptionNotified) *Row {
	r := s.bySeq[e.Ref.Seq]
	if r == nil {
		return nil
	}
	l := part(&r.Listen)
	if e.Note.Method == "notifications/subscriptions/acknowledged" {
		l.Acked = true
		l.Filter = ackedFilter(e.Note.Params)
	} else {
		l.Count++
		if len(l.Last) == rowListenNotes {
			l.Last = append(l.Last[:0], l.Last[1:]...)
		}
		l.Last = append(l.Last, e.Note)
	}
	r.Touch()
	return r
}

// ackedFilter is the notifications member of an acknowledgement's params.
func ackedFilter(params []byte) []byte {
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Notifications
}

package session

import (
	"bytes"
	"encoding/json"
	"time"
)

// NotificationArrived reports the peer sent a notification the session does not
// handle itself (every one but cancelled and progress), such as a log
// message or a list change. The session applies no meaning to it; the
// client layer (internal/mcp) reads its params.
type NotificationArrived struct {
	At     time.Time
	Method string
	// Params is a copy of the params as sent, nil when there were none or
	// they were over MaxNotificationKept; Size is their full length.
	Params json.RawMessage
	Size   int
	// Related is the request the notification came with, when the
	// transport says so: it arrived on that request's own response stream
	// (Streamable HTTP), as a server sends what a request's handler logs.
	// Zero when nothing relates it.
	Related Ref
}

func (NotificationArrived) event() {}

// MaxNotificationKept bounds the params a NotificationArrived carries: a
// log message's data can be any JSON value, and a subscriber holds every
// event until it reads it.
const MaxNotificationKept = 256 << 10

// emitNotification tells subscribers about a notification.
func (s *Session) emitNotification(method string, params json.RawMessage, at time.Time) {
	e := NotificationArrived{At: at, Method: method, Size: len(params)}
	if len(params) <= MaxNotificationKept {
		e.Params = bytes.Clone(params)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.relatedID) > 0 {
		if r := s.table.outgoing(string(s.relatedID)); r != nil {
			e.Related = r.info.Ref()
		}
	}
	if len(s.subs) > 0 {
		s.emit(e)
	}
}

package session

import "time"

// A cancel may overtake its request: over Streamable HTTP in 2025-11-25
// each message is its own POST, and the POST of notifications/cancelled
// can be read before the one of the request it names. The session keeps
// such cancels a short while, so that the request that follows is taken
// as cancelled and never run. An id the peer sends again after the
// window is a new request. Both bounds keep a flood of cancels for
// unknown ids from growing memory. initialize is never cancelled.
const (
	earlyCancelWindow = 2 * time.Second
	maxEarlyCancels   = 1024
)

// earlyCancel is a cancel for a request id not (yet) in flight.
type earlyCancel struct {
	id     string // raw JSON
	reason string
	at     time.Time
}

// earlyCancels holds cancels for unseen ids, oldest first.
type earlyCancels struct {
	list []earlyCancel
}

// add remembers a cancel for id, dropping the expired ones and, past the
// bound, the oldest.
func (e *earlyCancels) add(id, reason string, now time.Time) {
	e.expire(now)
	if len(e.list) >= maxEarlyCancels {
		e.list = e.list[1:]
	}
	e.list = append(e.list, earlyCancel{id: id, reason: reason, at: now})
}

// take returns and forgets the cancel remembered for id, if it is still
// within the window.
func (e *earlyCancels) take(id string, now time.Time) (earlyCancel, bool) {
	e.expire(now)
	for i, c := range e.list {
		if c.id == id {
			e.list = append(e.list[:i], e.list[i+1:]...)
			return c, true
		}
	}
	return earlyCancel{}, false
}

// expire drops the cancels older than the window.
func (e *earlyCancels) expire(now time.Time) {
	i := 0
	for i < len(e.list) && now.Sub(e.list[i].at) > earlyCancelWindow {
		i++
	}
	if i > 0 {
		e.list = append(e.list[:0], e.list[i:]...)
	}
}

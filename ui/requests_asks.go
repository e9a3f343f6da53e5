package ui

import (
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// rowAsk is what the UI knows about a request of the server's that asked
// someone something (sampling, elicitation), beyond the session's row:
// whether it waits for the person, how it was answered, and its task.
type rowAsk struct {
	q    *mcp.Question
	kind string // "sampling", "elicitation form", "elicitation url"
	// waiting: the question waits for the person.
	waiting bool
	// answer says how it was answered: "replied", "declined", "accept", or
	// by a policy "accept (--elicit ...)".
	answer string
	// withdrawn says why it may no longer be answered: "cancelled by the
	// server: REASON", "the task's ttl of 5m0s passed".
	withdrawn string
	// notSent says why an answer was not sent: it came too late.
	notSent string
	// The task mcpoke hosts for a task-augmented request.
	taskID, taskStatus, taskMessage string
	// completedAt is when the server said a url elicitation was done.
	completedAt time.Time
}

// askNote returns the note of request seq, making it if needed: a
// question can arrive before its row.
func (s *requestStore) askNote(seq uint64) *rowAsk {
	if s.asks == nil {
		s.asks = map[uint64]*rowAsk{}
	}
	n := s.asks[seq]
	if n == nil {
		n = &rowAsk{}
		s.asks[seq] = n
		if r := s.bySeq[seq]; r != nil {
			r.ask = n
		}
	}
	return n
}

// touchSeq marks the row of seq changed, so its views redraw.
func (s *requestStore) touchSeq(seq uint64) {
	if r := s.bySeq[seq]; r != nil {
		r.touch()
	}
}

// withheld records that the session did not send the answer to seq: the
// server had cancelled the request first.
func (s *requestStore) withheld(seq uint64, why string) {
	n := s.askNote(seq)
	if n.notSent == "" {
		n.notSent = "not sent: the server had cancelled the request (" + why + ")"
	}
	s.touchSeq(seq)
}

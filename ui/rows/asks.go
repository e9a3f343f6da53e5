package rows

import (
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// Ask is what the UI knows about a request of the server's that asked
// someone something (sampling, elicitation), beyond the session's row:
// whether it waits for the person, how it was answered, and its task.
type Ask struct {
	Q    *mcp.Question
	Kind string // "sampling", "elicitation form", "elicitation url"
	// waiting: the question waits for the person.
	Waiting bool
	// answer says how it was answered: "replied", "declined", "accept", or
	// by a policy "accept (--elicit ...)".
	Answer string
	// withdrawn says why it may no longer be answered: "cancelled by the
	// server: REASON", "the task's ttl of 5m0s passed".
	Withdrawn string
	// notSent says why an answer was not sent: it came too late.
	NotSent string
	// The task mcpoke hosts for a task-augmented request.
	TaskID, TaskStatus, TaskMessage string
	// completedAt is when the server said a url elicitation was done.
	CompletedAt time.Time
}

// AskNote returns the note of request seq, making it if needed: a
// question can arrive before its row.
func (s *Store) AskNote(seq uint64) *Ask {
	if s.asks == nil {
		s.asks = map[uint64]*Ask{}
	}
	n := s.asks[seq]
	if n == nil {
		n = &Ask{}
		s.asks[seq] = n
		if r := s.bySeq[seq]; r != nil {
			r.Ask = n
		}
	}
	return n
}

// TouchSeq marks the row of seq changed, so its views redraw.
func (s *Store) TouchSeq(seq uint64) {
	if r := s.bySeq[seq]; r != nil {
		r.Touch()
	}
}

// withheld records that the session did not send the answer to seq: the
// server had cancelled the request first.
func (s *Store) withheld(seq uint64, why string) {
	n := s.AskNote(seq)
	if n.NotSent == "" {
		n.NotSent = "not sent: the server had cancelled the request (" + why + ")"
	}
	s.TouchSeq(seq)
}

package session

import (
	"context"
	"errors"
	"time"
)

// AnswerWithheld reports the handler of a request the peer sent ended after the
// peer had cancelled it (or the session ended under it), so its answer
// was not sent, as the spec asks. Answered says the handler had an answer
// (a result or an error of its own), not just its context's end: a person
// who answered too late is told so.
type AnswerWithheld struct {
	Ref Ref
	At  time.Time
	// Why is the peer's cancel reason, or why the session ended.
	Why      string
	Answered bool
}

func (AnswerWithheld) event() {}

// withhold records that r's answer is not sent. Callers hold s.mu.
func (s *Session) withhold(r *request, err error) {
	if len(s.subs) == 0 {
		return
	}
	why := r.info.m().CancelReason
	if why == "" && s.closed {
		why = "the session ended"
	}
	answered := err == nil || !(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
	s.emit(AnswerWithheld{Ref: r.info.Ref(), At: s.clock.Now(), Why: why, Answered: answered})
}

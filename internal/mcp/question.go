package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// Question is a request of the server's that waits for someone to answer
// it: sampling/createMessage or elicitation/create. The TUI shows it to a
// person; a headless command answers it by a policy (--sample, --elicit).
// It is withdrawn when the server cancels the request (or its task), the
// task's ttl passes, or the session ends: then no answer is sent.
type Question struct {
	// Ref is the request's row in the session's table.
	Ref    session.Ref
	Method string
	// Exactly one of Sampling and Elicit is set.
	Sampling *SamplingRequest
	Elicit   *ElicitRequest
	// TaskID is set when the server asked for a task: the answer becomes
	// the task's result, which the server fetches with tasks/result.
	TaskID string
	// InputKey and Round are set when the question is one of the
	// inputRequests of a multi round-trip request's round (2026-07-28):
	// Ref is then that request's, and the answer goes in its retry.
	InputKey string
	Round    int
	Asked    time.Time

	ctx   context.Context
	why   func() string
	reply chan answer
	once  sync.Once
	// answered is set by the first Answer: a second one is told so even
	// when the request has ended since (its context is then done too).
	answered atomic.Bool
}

type answer struct {
	result json.RawMessage
	err    error
}

// ErrAlreadyAnswered means a question takes one answer.
var ErrAlreadyAnswered = errors.New("this request was already answered")

// TooLateError means the question was withdrawn before the answer came, so the
// answer was not sent. Why says by whom: "cancelled by the server: ...".
type TooLateError struct{ Why string }

// Error implements error.
func (e *TooLateError) Error() string { return "not sent: " + e.Why }

// Withdrawn is closed once the question may no longer be answered.
func (q *Question) Withdrawn() <-chan struct{} { return q.ctx.Done() }

// Why says why the question was withdrawn; "" while it stands.
func (q *Question) Why() string {
	if q.ctx.Err() == nil {
		return ""
	}
	return q.why()
}

// Answer gives the question its answer: a result, or an error such as
// SamplingDeclined. A withdrawn question refuses it with a *TooLateError
// and nothing is sent; a second answer gets ErrAlreadyAnswered.
func (q *Question) Answer(result json.RawMessage, err error) error {
	if q.answered.Load() {
		return ErrAlreadyAnswered
	}
	if q.ctx.Err() != nil {
		return &TooLateError{Why: q.why()}
	}
	taken := false
	q.once.Do(func() {
		q.answered.Store(true)
		q.reply <- answer{result, err}
		taken = true
	})
	if !taken {
		return ErrAlreadyAnswered
	}
	return nil
}

// wait waits for the answer or the withdrawal.
func (q *Question) wait() (json.RawMessage, error) {
	select {
	case a := <-q.reply:
		return a.result, a.err
	case <-q.ctx.Done():
		return nil, context.Cause(q.ctx)
	}
}

// Kind names what is asked: "sampling", "elicitation form" or
// "elicitation url".
func (q *Question) Kind() string {
	if q.Elicit != nil {
		return "elicitation " + q.Elicit.Mode
	}
	return "sampling"
}

// Asker hands a question to whoever answers it. It must not block: the
// answer comes later, through Question.Answer.
type Asker func(*Question)

package session

import (
	"fmt"
	"time"
)

// Request is the handle on one request of the session's table, ours or
// the peer's: ask whether it can be cancelled, cancel it, read it. It is a
// small value that names the request by its Ref, safe to copy and to use
// from any goroutine. Get one from Session.Request.
type Request struct {
	s   *Session
	ref Ref
}

// Request returns the handle on the request ref names: a Ref from an
// event, a RequestInfo or Call.Ref. A request the table no longer keeps
// (or never had) is unknown to the handle's methods.
func (s *Session) Request(ref Ref) Request { return Request{s: s, ref: ref} }

// Ref names the request the handle is for.
func (h Request) Ref() Ref { return h.ref }

// Info returns a snapshot of the request while the table keeps it.
func (h Request) Info() (RequestInfo, bool) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if r := h.s.table.find(h.ref); r != nil {
		return r.snapshot(), true
	}
	return RequestInfo{}, false
}

// CanCancel says whether Cancel would act, and if not, why, in words a
// user can read: ErrIncomingRequest, ErrUnknownRequest,
// ErrInitializeNotCancellable or ErrNotCancellable. It sends nothing.
func (h Request) CanCancel() error {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	_, err := h.s.cancellable(h.ref)
	return err
}

// Cancel asks the peer to stop the request: it moves to cancelling at once
// and notifications/cancelled {requestId, reason} is sent after the
// request itself was written. A task is cancelled with tasks/cancel
// instead (MCP 2025-11-25), and so is the request that created it, whose
// task is what runs on; a request that asked for a task and has no
// CreateTaskResult yet sends nothing until that result names the task. It
// refuses, sending nothing, with the error CanCancel gives. From the
// moment Cancel returns, nothing that arrives for the request is delivered
// as its result: it is recorded as late traffic.
func (h Request) Cancel(reason string) error {
	s := h.s
	s.mu.Lock()
	r, err := s.cancellable(h.ref)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	sendNow := s.markCancelling(r, reason)
	s.mu.Unlock()
	if sendNow {
		s.sendCancels([]*request{r})
	}
	return nil
}

// cancellable finds the request ref names if we may cancel it. Callers
// hold s.mu.
func (s *Session) cancellable(ref Ref) (*request, error) {
	if ref.Incoming {
		// A cancellation goes in the direction of its request.
		return nil, ErrIncomingRequest
	}
	r := s.table.find(ref)
	if r == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownRequest, ref.ID)
	}
	if r.info.Method == "initialize" {
		return nil, ErrInitializeNotCancellable
	}
	if isTaskCancel(r) {
		return nil, fmt.Errorf("%w: it is the cancellation of a task", ErrNotCancellable)
	}
	if t := r.taskRow(); t != nil && r.info.State.Final() {
		// The request ended with its CreateTaskResult; what runs on is
		// its task, which is what cancelling it means.
		r = t
	}
	switch st := r.info.State; st {
	case Pending:
		return r, nil
	case Cancelling:
		return nil, fmt.Errorf("%w: it is already cancelling", ErrNotCancellable)
	default:
		return nil, fmt.Errorf("%w: it has already ended (%s)", ErrNotCancellable, st)
	}
}

// SetTimeout gives a pending outgoing request a new timeout of d from now
// (0: none), as a person who decides to wait longer or shorter would; the
// hard limit (MaxTimeout) stays. It refuses, changing nothing, with the
// error CanCancel gives for a request that is not pending.
func (h Request) SetTimeout(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("timeout %s: must not be negative", d)
	}
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.cancellable(h.ref)
	if err != nil {
		return err
	}
	s.armTimeout(r, d)
	return nil
}

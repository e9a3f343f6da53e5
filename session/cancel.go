package session

import (
	"encoding/json"
	"fmt"

	"github.com/mcpoke/mcpoke/transport"
)

// CanCancel says whether Cancel(id) would act, and if not, why, in words
// a user can read. It sends nothing.
func (s *Session) CanCancel(id ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.cancellable(id)
	return err
}

// cancellable finds the request Cancel may act on. Callers hold s.mu.
func (s *Session) cancellable(id ID) (*request, error) {
	r, ok := s.out[id.raw]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownRequest, id)
	}
	if r.info.Method == "initialize" {
		return nil, ErrInitializeNotCancellable
	}
	switch st := r.info.State; st {
	case Pending:
		return r, nil
	case Cancelling:
		return nil, fmt.Errorf("%w: it is already cancelling", ErrNotCancellable)
	default:
		return nil, fmt.Errorf("%w: it already ended %s", ErrNotCancellable, st)
	}
}

// Cancel asks the peer to stop request id: the request moves to cancelling
// at once and notifications/cancelled {requestId, reason} is sent (for a
// task, tasks/cancel). It refuses, sending nothing, for initialize, unknown
// ids and requests that are not in flight. From the moment Cancel returns,
// nothing that arrives for the request is delivered as its result: it is
// recorded as late traffic.
func (s *Session) Cancel(id ID, reason string) error {
	s.mu.Lock()
	r, err := s.cancellable(id)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	r.info.CancelReason = reason
	r.info.CancelAt = s.clock.Now()
	s.setState(r, Cancelling, reason)
	r.stopTimers()
	if !r.written {
		// Call is still writing the request; it sends the cancel after it,
		// so the peer never sees a cancel before its request.
		r.cancelQueued = true
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	s.sendCancel(r)
	return nil
}

// CancelAll cancels every outgoing request in flight except initialize
// and returns how many it cancelled.
func (s *Session) CancelAll(reason string) int {
	s.mu.Lock()
	var ids []ID
	for _, r := range s.order {
		if !r.info.Incoming && r.info.State == Pending && r.info.Method != "initialize" {
			ids = append(ids, r.info.ID)
		}
	}
	s.mu.Unlock()
	n := 0
	for _, id := range ids {
		if s.Cancel(id, reason) == nil {
			n++
		}
	}
	return n
}

// sendCancel delivers the cancellation of r, whose state was already
// decided, then starts its settle window.
func (s *Session) sendCancel(r *request) {
	s.mu.Lock()
	id, reason, taskID := r.info.ID, r.info.CancelReason, r.info.TaskID
	s.mu.Unlock()

	var err error
	switch {
	case taskID != "":
		// Tasks have their own cancellation, which answers with the
		// task's final state (MCP 2025-11-25 tasks).
		err = s.cancelTask(r, taskID)
	default:
		err = s.sendCancelNotification(id, reason)
	}
	s.log.Info("cancel sent", "id", id.String(), "reason", reason, "err", err)

	s.mu.Lock()
	defer s.mu.Unlock()
	r.info.CancelSentAt = s.clock.Now()
	if r.info.State != Cancelling || taskID != "" {
		return
	}
	if err != nil || s.cfg.SettleWindow < 0 {
		s.setState(r, Cancelled, reason)
		return
	}
	r.timer = s.clock.AfterFunc(s.cfg.SettleWindow, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.info.State == Cancelling {
			s.setState(r, Cancelled, r.info.CancelReason)
		}
	})
}

// sendCancelNotification tells the peer to stop request id. On a transport
// with per-request streams, closing the stream is the cancellation.
func (s *Session) sendCancelNotification(id ID, reason string) error {
	if c, ok := s.conn.(transport.RequestStreamCloser); ok {
		if done, err := c.CloseRequestStream([]byte(id.raw)); done || err != nil {
			return err
		}
	}
	b := make([]byte, 0, 96+len(reason))
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = append(b, id.raw...)
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, reason)
	}
	b = append(b, "}}"...)
	return s.send(b)
}

// cancelTask sends tasks/cancel for a task-augmented request and ends the
// request cancelled when the peer has answered.
func (s *Session) cancelTask(r *request, taskID string) error {
	params, _ := json.Marshal(map[string]string{"taskId": taskID})
	c, err := s.Call(s.ctx, "tasks/cancel", json.RawMessage(params), CallOptions{NoProgressToken: true})
	if err != nil {
		return err
	}
	go func() {
		_, _, err := c.Result()
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.info.State == Cancelling {
			reason := r.info.CancelReason
			if err != nil {
				reason += fmt.Sprintf(" (tasks/cancel: %v)", err)
			}
			s.setState(r, Cancelled, reason)
		}
	}()
	return nil
}

// expire ends r as timed out and cancels it on the wire.
func (s *Session) expire(r *request, reason string) {
	s.mu.Lock()
	if r.info.State != Pending {
		s.mu.Unlock()
		return
	}
	r.info.CancelReason = reason
	r.info.CancelAt = s.clock.Now()
	s.setState(r, TimedOut, reason)
	written := r.written
	if !written {
		r.cancelQueued = true
	}
	s.mu.Unlock()
	if written {
		s.sendCancel(r)
	}
}

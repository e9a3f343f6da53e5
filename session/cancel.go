package session

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpoke/mcpoke/transport"
)

// CancelAll cancels every outgoing request in flight except initialize
// and returns how many it cancelled. All of them move to cancelling in one
// step, before the first notification is written.
func (s *Session) CancelAll(reason string) int {
	s.mu.Lock()
	var ready []*request
	n := 0
	for _, r := range s.table.order {
		if r.info.Incoming || r.info.State != Pending || r.info.Method == "initialize" {
			continue
		}
		n++
		if s.markCancelling(r, reason) {
			ready = append(ready, r)
		}
	}
	s.mu.Unlock()
	s.sendCancels(ready)
	return n
}

// markCancelling moves r to cancelling and reports whether the caller
// should send the cancellation now. Callers hold s.mu.
func (s *Session) markCancelling(r *request, reason string) (sendNow bool) {
	r.info.CancelReason = reason
	r.info.CancelAt = s.clock.Now()
	s.setState(r, Cancelling, reason)
	r.stopTimers()
	if !r.written {
		// Call is still writing the request; it sends the cancel after it,
		// so the peer never sees a cancel before its request.
		r.cancelQueued = true
		return false
	}
	return true
}

// sendCancels delivers the cancellations of rs, whose states were already
// decided, then starts their settle window: one timer for the batch.
func (s *Session) sendCancels(rs []*request) {
	if len(rs) == 0 {
		return
	}
	type target struct {
		id             ID
		reason, taskID string
	}
	targets := make([]target, len(rs))
	s.mu.Lock()
	for i, r := range rs {
		targets[i] = target{r.info.ID, r.info.CancelReason, r.info.TaskID}
	}
	s.mu.Unlock()

	logging := s.log.Enabled(context.Background(), slog.LevelInfo)
	var settling []*request
	for i, r := range rs {
		id, reason, taskID := targets[i].id, targets[i].reason, targets[i].taskID
		var at time.Time
		var err error
		var how CancelWire
		if taskID != "" {
			// Tasks have their own cancellation, which answers with the
			// task's final state (MCP 2025-11-25 tasks).
			at, err = s.cancelTask(r, taskID)
		} else {
			at, how, err = s.sendCancelNotification(id, reason)
		}
		if logging {
			s.log.Info("cancel sent", "id", id.String(), "reason", reason, "err", err)
		}
		// Late traffic is timed from here, so record it at once, per
		// request: CancelAll may write thousands.
		s.mu.Lock()
		if s.cancelWritten(r, at, how, err) {
			settling = append(settling, r)
		}
		s.mu.Unlock()
	}
	if len(settling) == 0 {
		return
	}
	// One timer for the batch; it only acts on requests still cancelling.
	s.clock.AfterFunc(s.cfg.SettleWindow, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, r := range settling {
			if r.info.State == Cancelling {
				s.setState(r, Cancelled, r.info.CancelReason)
			}
		}
	})
}

// cancelWritten records that r's cancellation reached the transport at
// at (or failed to: err) and reports whether r now waits out the settle
// window. Callers hold s.mu.
func (s *Session) cancelWritten(r *request, at time.Time, how CancelWire, err error) (settles bool) {
	if at.IsZero() {
		at = s.clock.Now() // nothing was written
	}
	r.info.CancelSentAt = at
	r.info.CancelWire = how
	if len(s.subs) > 0 {
		s.emit(CancelSent{Ref: r.info.Ref(), At: at, Err: err, Wire: how})
	}
	switch {
	case r.info.State != Cancelling:
		return false // a timeout: final already
	case err == nil && r.info.TaskID != "":
		return false // ends when tasks/cancel is answered, or times out
	case how.ByStreamClose:
		// Nothing more can arrive for it: there is nothing to watch.
		s.setState(r, Cancelled, r.info.CancelReason)
		return false
	case err != nil || s.cfg.SettleWindow < 0:
		s.setState(r, Cancelled, r.info.CancelReason)
		return false
	}
	return true
}

// sendCancelNotification tells the peer to stop request id by the rule of
// the era: in 2026-07-28, over a transport whose requests have their own
// streams, by ending that stream and nothing else (--cancel-mode does not
// apply); otherwise as Config.CancelMode says: notifications/cancelled,
// closing the request's own stream (where the transport has one), or
// both. It says when the cancellation was written and what it did.
// Each frame is a fresh buffer: tap observers such as the wire log keep it.
func (s *Session) sendCancelNotification(id ID, reason string) (time.Time, CancelWire, error) {
	var how CancelWire
	s.mu.Lock()
	modern := s.modern != nil
	s.mu.Unlock()
	if rs, ok := s.conn.(transport.RequestStreams); ok && modern && rs.HasRequestStreams() {
		how.ByStreamClose = true
		closed, err := rs.CloseRequestStream([]byte(id.raw))
		how.StreamClosed = closed
		return s.clock.Now(), how, err
	}
	if modern {
		how.Notified = true // stdio: the one way, whatever the mode
		return s.notifyCancelled(id, reason, how)
	}
	if s.cfg.CancelMode != CancelNotify {
		if c, ok := s.conn.(transport.RequestStreamCloser); ok {
			done, err := c.CloseRequestStream([]byte(id.raw))
			how.StreamClosed = done
			if err != nil || (done && s.cfg.CancelMode == CancelClose) {
				return s.clock.Now(), how, err
			}
		}
	}
	how.Notified = true
	return s.notifyCancelled(id, reason, how)
}

// notifyCancelled writes notifications/cancelled for request id.
func (s *Session) notifyCancelled(id ID, reason string, how CancelWire) (time.Time, CancelWire, error) {
	b := make([]byte, 0, 96+len(reason))
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = append(b, id.raw...)
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, reason)
	}
	b = append(b, "}}"...)
	at, err := s.sendStamped(b)
	return at, how, err
}

// cancelTask sends tasks/cancel for a task-augmented request, says when it
// was written, and ends the request cancelled when the
// peer has answered.
func (s *Session) cancelTask(r *request, taskID string) (time.Time, error) {
	params, _ := json.Marshal(map[string]string{"taskId": taskID})
	c, err := s.Call(s.ctx, "tasks/cancel", json.RawMessage(params), CallOptions{NoProgressToken: true, Timeout: taskCancelTimeout})
	if err != nil {
		var at time.Time
		if c != nil {
			at = c.sentAt
		}
		return at, err
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
	return c.sentAt, nil
}

// taskCancelTimeout bounds the wait for a tasks/cancel answer, so that a
// task request never stays cancelling for good.
const taskCancelTimeout = 30 * time.Second

// expire ends r as timed out and cancels it on the wire, except
// initialize, which must never be cancelled, and requests whose timeout
// is quiet (CallOptions.QuietTimeout).
func (s *Session) expire(r *request, reason string) {
	s.mu.Lock()
	if r.info.State != Pending {
		s.mu.Unlock()
		return
	}
	r.info.CancelReason = reason
	r.info.CancelAt = s.clock.Now()
	s.setState(r, TimedOut, reason)
	if r.quietTimeout {
		s.mu.Unlock()
		return
	}
	written := r.written
	if !written {
		r.cancelQueued = true
	}
	s.mu.Unlock()
	if written {
		s.sendCancels([]*request{r})
	}
}

// CancelMode says how a request is cancelled on the wire.
type CancelMode uint8

const (
	// CancelNotify sends notifications/cancelled: the cancellation of
	// every protocol version up to 2025-11-25.
	CancelNotify CancelMode = iota
	// CancelClose closes the request's own stream (Streamable HTTP) and
	// sends nothing; where there is no such stream it notifies. Under
	// 2025 versions a disconnect is not a cancel: this probes a server.
	CancelClose
	// CancelBoth closes the stream and notifies.
	CancelBoth
)

// String implements fmt.Stringer with the names of --cancel-mode.
func (m CancelMode) String() string {
	switch m {
	case CancelClose:
		return "close"
	case CancelBoth:
		return "both"
	}
	return "notify"
}

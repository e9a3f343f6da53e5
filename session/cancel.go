package session

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/mcpoke/mcpoke/transport"
)

// CancelAll cancels every outgoing request in flight except initialize
// and housekeeping (a health ping the person never asked for) and returns how many it cancelled. All of them move to cancelling in one
// step, before the first notification is written.
func (s *Session) CancelAll(reason string) int {
	s.mu.Lock()
	var ready []*request
	n := 0
	for _, r := range s.table.order {
		if r.info.Incoming || r.info.State != Pending || r.info.Method == "initialize" || isTaskCancel(r) || r.info.Housekeeping {
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
	r.info.w().CancelReason = reason
	r.info.w().CancelAt = s.clock.Now()
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
		awaitTask      bool
	}
	targets := make([]target, len(rs))
	s.mu.Lock()
	for i, r := range rs {
		targets[i] = target{r.info.ID, r.info.m().CancelReason, r.info.TaskID, r.taskAugmented() && r.info.TaskID == ""}
	}
	s.mu.Unlock()

	logging := s.log.Enabled(context.Background(), slog.LevelInfo)
	var settling []*request
	for i, r := range rs {
		id, reason, taskID := targets[i].id, targets[i].reason, targets[i].taskID
		if targets[i].awaitTask {
			s.awaitTaskToCancel(r)
			continue
		}
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
			logCancel(s.log, id, reason, taskID != "", how, err)
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
				s.setState(r, Cancelled, r.info.m().CancelReason)
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
	r.info.w().CancelSentAt = at
	r.info.w().CancelWire = how
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
		s.setState(r, Cancelled, r.info.m().CancelReason)
		return false
	case err != nil || s.cfg.SettleWindow < 0:
		s.setState(r, Cancelled, r.info.m().CancelReason)
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
	modern := s.era2026 != nil
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
	at, err := s.sendStamped(transport.Outgoing{Frame: b, Method: "notifications/cancelled"})
	return at, how, err
}

// cancelTask sends tasks/cancel for the task row r and says when it was
// written; the answer ends r (see taskCancelAnswered).
func (s *Session) cancelTask(r *request, taskID string) (time.Time, error) {
	params, _ := json.Marshal(map[string]string{"taskId": taskID})
	c, err := s.Call(s.ctx, "tasks/cancel", json.RawMessage(params),
		CallOptions{NoProgressToken: true, Timeout: taskCancelTimeout, forTask: r})
	if c == nil {
		return time.Time{}, err
	}
	return c.sentAt, err
}

// awaitTaskToCancel: r asked for a task and was cancelled before its
// CreateTaskResult named the task. Nothing is sent now, since a
// task-augmented request is cancelled only with tasks/cancel (MCP
// 2025-11-25); the CreateTaskResult, when it comes, has its task cancelled
// (see cancelCreatedTask). Should none come, r ends cancelled in the end.
func (s *Session) awaitTaskToCancel(r *request) {
	s.clock.AfterFunc(taskCancelTimeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.info.State == Cancelling {
			s.setState(r, Cancelled, r.info.m().CancelReason+" (no task was created to cancel)")
		}
	})
}

// cancelCreatedTask hands the cancel of parent, decided before its
// CreateTaskResult came, to the task t it created: parent ends (cancelled,
// or as it timed out), t moves to cancelling (or timed out) with the same
// reason, and the caller sends tasks/cancel. Callers hold s.mu.
func (s *Session) cancelCreatedTask(parent, t *request, frame []byte, now time.Time) *request {
	reason := parent.info.m().CancelReason
	was := parent.info.State
	if was == Cancelling {
		s.setState(parent, Cancelled, reason)
	} else {
		s.late(parent, LateResponse, now, frame)
	}
	if t.info.State != Pending {
		return nil // the server made it cancelled
	}
	if was == TimedOut {
		t.info.w().CancelReason, t.info.w().CancelAt = reason, s.clock.Now()
		s.setState(t, TimedOut, reason)
		return t
	}
	s.markCancelling(t, reason)
	return t
}

// isTaskCancel reports whether r is a tasks/cancel sent for a task row:
// a cancellation, which is not itself cancelled.
func isTaskCancel(r *request) bool { return r.forTask() != nil && r.info.Method == "tasks/cancel" }

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
	r.info.w().CancelReason = reason
	r.info.w().CancelAt = s.clock.Now()
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

// logCancel logs what a cancellation did on the wire: sent, or only the
// stream closed with nothing sent, or why it could not be written. No
// err=<nil> on success.
func logCancel(log *slog.Logger, id ID, reason string, task bool, how CancelWire, err error) {
	args := []any{"id", id.String(), "reason", reason}
	switch {
	case err != nil:
		log.Warn("cancel not sent", append(args, "err", err)...)
	case task || how.Notified:
		log.Info("cancel sent", args...)
	case how.StreamClosed || how.ByStreamClose:
		log.Info("stream closed to cancel, nothing sent", args...)
	default:
		log.Info("cancelled, nothing sent", args...)
	}
}

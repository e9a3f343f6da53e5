package session

import (
	"context"
	"log/slog"
	"time"
)

// handleResponse settles the request a response answers, or records the
// response as late, duplicate or stray. kinds and details are the
// envelope's violations (envelopeViolations), flagged here because here
// the request they concern is known. A response with both result and
// error, or with a malformed error object, fails a pending request with
// words that say so; no error code is made up.
func (s *Session) handleResponse(m *wireMessage, frame []byte, kinds []ViolationKind, details []string, now time.Time) {
	kind := LateResponse
	var rpcErr *RPCError
	unusable := "" // why a pending request cannot take this response
	if m.Error != nil {
		kind = LateError
		var why string
		if rpcErr, why = parseErrorObject(m.Error); why != "" {
			unusable = "malformed error object from the server (" + why + "): " + truncate(m.Error, 200)
			kinds, details = append(kinds, ViolationMalformedError), append(details, unusable)
		}
	}
	if m.Result != nil && m.Error != nil {
		unusable = "the server sent both result and error in one response, which JSON-RPC forbids; neither was used: " +
			truncate(frame, 200)
		kinds, details = append(kinds, ViolationResultAndError), append(details, unusable)
	}
	if toCancel := s.applyResponse(m, frame, kinds, details, unusable, rpcErr, kind, now); toCancel != nil {
		s.sendCancels([]*request{toCancel})
	}
}

// applyResponse is handleResponse under s.mu. It returns a task row to
// cancel at once: one created by a request cancelled before its
// CreateTaskResult came, which named the task to cancel.
func (s *Session) applyResponse(m *wireMessage, frame []byte, kinds []ViolationKind, details []string,
	unusable string, rpcErr *RPCError, kind LateKind, now time.Time) (toCancel *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Index by the id's exact JSON text: "1" never finds request 1. The
	// conversion in a map index does not allocate.
	r := s.table.outgoing(string(m.ID))
	for i, k := range kinds {
		s.violate(r, k, m.ID, frame, details[i])
	}
	if r == nil {
		id, _ := ParseID(m.ID)
		s.emit(StrayArrived{At: now, Kind: kind, ID: id, Data: kept(frame), Size: len(frame)})
		s.log.Warn("stray response", "id", string(m.ID))
		return nil
	}
	s.arrival = now
	defer func() { s.arrival = time.Time{} }()
	switch r.info.State {
	case Pending:
		switch {
		case unusable != "":
			r.info.w().Failure = unusable
			s.setState(r, Failed, unusable)
		case rpcErr != nil:
			r.info.Error = rpcErr
			s.setState(r, Failed, rpcErr.Error())
		case !r.taskAugmented() && resultTypeOf(m.Result) == ResultTask && (!s.takesTask(r) || unusableTask(m.Result) != ""):
			kind, why := ViolationUnsolicitedTask, s.refusedTask(r)
			if s.takesTask(r) {
				kind, why = ViolationMalformedTask, "the CreateTaskResult of request "+r.info.ID.String()+" is unusable: "+unusableTask(m.Result)
			}
			s.violate(r, kind, m.ID, frame, why)
			r.info.Result, r.info.ResultType, r.info.w().Failure = m.Result, ResultTask, why
			s.setState(r, Failed, why)
		default:
			r.info.Result = m.Result
			r.info.ResultType = ResultComplete
			if s.era2026 != nil {
				// resultType is 2026-07-28's: before it, a result's
				// "resultType" is just an unknown member.
				r.info.ResultType = resultTypeOf(m.Result)
			}
			s.setState(r, Completed, "")
			if r.taskAugmented() || (r.info.ResultType == ResultTask && s.takesTask(r)) {
				s.taskCreated(r, m.Result, frame, now)
			} else if unsolicitedTask(m.Result) {
				s.violate(r, ViolationUnsolicitedTask, m.ID, frame, "the server answered request "+r.info.ID.String()+
					" with a CreateTaskResult, but the request did not ask for a task (no task member in its params); "+
					"it is taken as the result and no task is followed")
			}
		}
	case Cancelling, Cancelled, TimedOut:
		mayTask := r.taskAugmented() || (s.takesTask(r) && resultTypeOf(m.Result) == ResultTask)
		if mayTask && r.taskRow() == nil && unusable == "" && rpcErr == nil {
			if t := s.taskCreated(r, m.Result, frame, now); t != nil {
				return s.cancelCreatedTask(r, t, frame, now)
			}
		}
		s.late(r, kind, now, frame)
		if r.taskAugmented() && r.info.State == Cancelling {
			// No task came to cancel: nothing more is awaited.
			s.setState(r, Cancelled, r.info.m().CancelReason)
		}
	default:
		r.info.w().Duplicates++
		s.emit(DuplicateArrived{Ref: r.info.Ref(), At: now, Data: kept(frame), Size: len(frame)})
		s.log.Warn("duplicate response", "id", r.info.ID.String())
	}
	return nil
}

// late records traffic for a request we cancelled or that timed out.
// Callers hold s.mu.
func (s *Session) late(r *request, kind LateKind, now time.Time, frame []byte) {
	lf := LateFrame{Kind: kind, At: now, AfterCancel: r.afterCancel(now), Data: kept(frame), Size: len(frame)}
	r.info.w().LateCount++
	if int(kind) < len(r.info.m().LateKinds) {
		r.info.w().LateKinds[kind]++
	}
	if len(r.info.m().Late) < maxLateFrames {
		r.info.w().Late = append(r.info.m().Late, lf)
	}
	s.emit(LateArrived{Ref: r.info.Ref(), Late: lf})
	if !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	s.log.Info("late traffic", "id", r.info.ID.String(), "kind", kind.String(),
		"afterCancel", lf.AfterCancel, "state", r.info.State.String())
}

// afterCancel is how long after the cancellation reached the transport
// traffic that arrives at now is: the one meaning of "late" (see
// LateFrame.AfterCancel). Callers hold s.mu.
func (r *request) afterCancel(now time.Time) time.Duration {
	switch {
	case !r.info.m().CancelSentAt.IsZero():
		// Traffic the tap took before the cancel but the session read
		// after deciding it was not late on the wire: 0, never negative.
		return max(now.Sub(r.info.m().CancelSentAt), 0)
	case r.quietTimeout && r.info.State == TimedOut:
		// Never cancelled on the wire (initialize, the MCP spec; the era
		// probe): its timeout is the moment we stopped waiting.
		return now.Sub(r.info.m().CancelAt)
	default:
		return 0 // decided, not yet written
	}
}

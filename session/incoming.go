package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mcpoke/mcpoke/transport"
)

// Incoming is a request the peer sent us, as a Handler sees it.
type Incoming struct {
	ID     ID
	Method string
	Params json.RawMessage

	s     *Session
	r     *request
	token ID // _meta.progressToken, if the peer asked for progress
	// afterAnswer runs once the handler's answer was written (or
	// withheld): see AfterAnswer.
	afterAnswer func()
}

// incomingRequest is a peer's request and what its handler is given, in
// one allocation.
type incomingRequest struct {
	request
	in Incoming
}

// AfterAnswer makes f run once this request's answer was handed to the
// transport, or withheld because the peer cancelled it. A task's work
// starts there, so that nothing about the task reaches the peer before
// the CreateTaskResult that names it. Call it from the handler.
func (in *Incoming) AfterAnswer(f func()) { in.afterAnswer = f }

// Session is the session the request arrived on.
func (in *Incoming) Session() *Session { return in.s }

// Ref names the request as events do: its row in the table.
func (in *Incoming) Ref() Ref { return in.r.info.Ref() }

// WantsProgress reports whether the peer sent a progress token.
func (in *Incoming) WantsProgress() bool { return !in.token.IsZero() }

// NotifyProgress sends notifications/progress for this request, if the
// peer asked for progress. total <= 0 means unknown.
func (in *Incoming) NotifyProgress(progress, total float64, message string) error {
	if in.token.IsZero() {
		return nil
	}
	b := make([]byte, 0, 128+len(message))
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`...)
	b = append(b, in.token.raw...)
	b = append(b, `,"progress":`...)
	b = appendFloat(b, progress)
	if total > 0 {
		b = append(b, `,"total":`...)
		b = appendFloat(b, total)
	}
	if message != "" {
		b = append(b, `,"message":`...)
		b = appendString(b, message)
	}
	b = append(b, "}}"...)
	return in.s.send(transport.Outgoing{Frame: b, Method: "notifications/progress"})
}

// IgnoreCancellation makes this request answer even after the peer
// cancels it: the cancel is logged, the handler's context is not
// cancelled, and its response is sent. The demo server's stubborn tool
// uses it to produce real late responses.
func (in *Incoming) IgnoreCancellation() {
	in.s.mu.Lock()
	in.r.ignoreCancel = true
	in.s.mu.Unlock()
}

// handleRequest starts a handler for an incoming request that arrived at
// at, when its row starts.
func (s *Session) handleRequest(m *wireMessage, at time.Time) {
	id, err := ParseID(m.ID)
	if err != nil {
		_ = s.send(transport.Outgoing{Frame: appendError(nil, ID{}, &RPCError{Code: CodeInvalidRequest, Message: "invalid request id: " + string(m.ID)})})
		return
	}
	if fractionalNumber(m.ID) {
		// Flagged by handleMessage. The id is echoed, so that the peer can
		// tell which of its requests was refused.
		_ = s.send(transport.Outgoing{Frame: appendError(nil, id, &RPCError{Code: CodeInvalidRequest,
			Message: "invalid request id " + id.String() + ": MCP request ids are strings or integers"}), ID: id.raw})
		return
	}
	h := s.cfg.Handlers[m.Method]
	if h == nil && m.Method == "ping" {
		h = pingHandler
	}

	s.mu.Lock()
	if s.table.incoming(id.raw) != nil {
		s.mu.Unlock()
		s.log.Warn("incoming request reuses an id in flight", "id", id.String(), "method", m.Method)
		_ = s.send(transport.Outgoing{Frame: appendError(nil, id, &RPCError{Code: CodeInvalidRequest, Message: "request id " + id.String() + " is already in use"}), ID: id.raw})
		return
	}
	tool, token := requestKeys(m.Method, m.Params)
	ri := &incomingRequest{request: request{
		info: rowInfo{ID: id, Incoming: true, Method: m.Method,
			Tool: tool, Params: m.Params, State: Pending, Started: at},
		cancelHandler: func() {}, // answered before any cancel is read, if immediate
	}}
	r := &ri.request
	s.table.add(r)
	if len(s.subs) > 0 {
		s.emit(RequestStarted{Info: r.snapshot()})
	}
	if c, ok := s.earlyCancels.take(id.raw, at); ok && m.Method != "initialize" {
		// Its cancel came first: it is cancelled before it runs, and
		// answered with nothing, as any cancelled request.
		r.info.w().CancelReason, r.info.w().CancelAt = c.reason, c.at
		s.setState(r, Cancelled, c.reason)
		s.mu.Unlock()
		s.log.Info("cancel received before its request: not run", "id", id.String(), "method", m.Method, "reason", c.reason)
		s.respond(r, nil, context.Canceled)
		return
	}
	if h == nil {
		s.mu.Unlock()
		s.respond(r, nil, &RPCError{Code: CodeMethodNotFound, Message: "Method not found: " + m.Method})
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()

	ri.in = Incoming{ID: id, Method: m.Method, Params: m.Params, s: s, r: r, token: token}
	in := &ri.in
	if q := s.cfg.Immediate[m.Method]; q != nil {
		if res, err, ok := q(in); ok {
			s.respond(r, res, err)
			s.handlers.Done()
			return
		}
	}
	// Only the reader cancels a handler (handleCancelled), and it is here.
	ctx, cancel := context.WithCancel(s.ctx)
	r.cancelHandler = cancel
	go func() {
		defer s.handlers.Done()
		defer cancel()
		res, err := h(ctx, in)
		s.respond(r, res, err)
		if in.afterAnswer != nil {
			in.afterAnswer()
		}
	}()
}

// respond sends a handler's answer, unless the request was cancelled and
// the handler does not ignore cancellation.
func (s *Session) respond(r *request, res any, err error) {
	var frame []byte
	s.mu.Lock()
	s.table.answered(r)
	if r.info.State != Pending && !r.ignoreCancel {
		s.withhold(r, err)
		s.mu.Unlock()
		s.log.Info("response suppressed: request was cancelled", "id", r.info.ID.String(), "method", r.info.Method)
		return
	}
	if err == nil {
		var result json.RawMessage
		result, err = marshalParams(res)
		if err == nil {
			r.info.Result = result
			frame = appendResult(make([]byte, 0, len(result)+len(r.info.ID.raw)+40), r.info.ID, result)
		}
	}
	if err != nil {
		var rpcErr *RPCError
		if !errors.As(err, &rpcErr) {
			rpcErr = &RPCError{Code: CodeInternalError, Message: err.Error()}
		}
		r.info.Error = rpcErr
		frame = appendError(nil, r.info.ID, rpcErr)
	}
	if r.info.State == Pending {
		if r.info.Error != nil {
			s.setState(r, Failed, r.info.Error.Error())
		} else {
			s.setState(r, Completed, "")
		}
	}
	s.mu.Unlock()
	_ = s.send(transport.Outgoing{Frame: frame, ID: r.info.ID.raw})
}

func pingHandler(context.Context, *Incoming) (any, error) { return json.RawMessage(`{}`), nil }

// handleNotification applies the notifications the session owns and hands
// the rest to Config.Notifications.
func (s *Session) handleNotification(m *wireMessage, frame []byte, at time.Time) {
	switch m.Method {
	case "notifications/cancelled":
		s.handleCancelled(m.Params, frame)
	case "notifications/progress":
		s.handleProgress(m.Params, frame, at)
	case "notifications/tasks/status":
		s.handleTaskStatus(m.Params, frame, at)
	default:
		s.subscriptionNote(m.Method, m.Params, frame, at)
		s.emitNotification(m.Method, m.Params, at)
	}
	if h := s.cfg.Notifications[m.Method]; h != nil {
		h(s, m.Params)
	}
}

// handleCancelled stops an incoming request the peer cancelled. Invalid
// cancellations (unknown id, finished request, malformed) are ignored and
// logged, as the spec asks.
func (s *Session) handleCancelled(params json.RawMessage, frame []byte) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.RequestID == nil {
		s.log.Warn("cancel received: malformed, ignored", "params", truncate(params, 200))
		return
	}
	id, err := ParseID(p.RequestID)
	if err != nil {
		s.log.Warn("cancel received: invalid request id, ignored", "requestId", string(p.RequestID))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.era2026 != nil {
		s.serverCancelled(id, p.Reason, frame)
		return
	}
	r := s.table.incoming(id.raw)
	if r == nil {
		// Answered already, or not arrived yet: a request that comes
		// within the window is taken as cancelled.
		s.earlyCancels.add(id.raw, p.Reason, s.clock.Now())
		s.log.Info("cancel received: no such request in flight; if it arrives within "+earlyCancelWindow.String()+" it is not run",
			"id", id.String(), "reason", p.Reason)
		return
	}
	if r.info.State != Pending {
		s.log.Info("cancel received: no such request in flight, ignored", "id", id.String(), "reason", p.Reason)
		return
	}
	now := s.clock.Now()
	ran := now.Sub(r.info.Started)
	r.info.w().CancelReason, r.info.w().CancelAt = p.Reason, now
	if r.ignoreCancel {
		s.log.Info("cancel received: handler ignores cancellation, will answer anyway",
			"id", id.String(), "method", r.info.Method, "tool", r.info.Tool, "reason", p.Reason, "ran", ran)
		return
	}
	s.log.Info("cancel received", "id", id.String(), "method", r.info.Method, "tool", r.info.Tool,
		"reason", p.Reason, "ran", ran, "signal", "notifications/cancelled")
	r.cancelHandler()
	s.setState(r, Cancelled, p.Reason)
}

// handleProgress applies notifications/progress to the request that was
// sent with its token, matched by the token's exact JSON text: token "1"
// is not request 1's, and a request sent without a token has no progress.
// Progress without a finite number, or not above the one before, is
// recorded with its Flaw and flagged; progress after the response is
// stray and flagged.
func (s *Session) handleProgress(params json.RawMessage, frame []byte, now time.Time) {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress json.RawMessage `json:"progress"`
		Total    *float64        `json:"total"`
		Message  string          `json:"message"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.noise(params, 0, NoiseNotJSONRPC, "malformed progress notification: "+jsonProblem(err), now)
		return
	}
	token, err := ParseID(p.Token)
	s.mu.Lock()
	defer s.mu.Unlock()
	var r *request
	if err == nil {
		if r = s.table.outgoing(token.raw); r != nil && r.token != token {
			r = nil
		}
		if r != nil && r.taskRow() != nil {
			// The token stays the task's until it ends (MCP 2025-11-25).
			r = r.taskRow()
		}
	}
	if fractionalNumber(p.Token) {
		s.violate(nil, ViolationNonIntegerID, p.Token, frame,
			"progressToken "+clipText(string(p.Token), 40)+" is not an integer; MCP tokens are strings or integers")
	}
	if r == nil {
		s.emit(StrayArrived{At: now, Kind: LateProgress, ID: token, Token: string(p.Token), Data: kept(frame), Size: len(frame)})
		return
	}
	switch r.info.State {
	case Pending:
		pr := Progress{At: now, Total: p.Total, Message: p.Message}
		var why string
		switch pr.Progress, pr.Flaw, why = progressValue(p.Progress); {
		case pr.Flaw != NoViolation:
		case r.info.m().Progress != nil && pr.Progress <= r.info.m().Progress.Progress:
			pr.Flaw = ViolationProgressNotIncreasing
			why = fmt.Sprintf("progress %s after %s: it must increase with each notification",
				formatFloat(pr.Progress), formatFloat(r.info.m().Progress.Progress))
		}
		if pr.Flaw != NoViolation {
			s.violate(r, pr.Flaw, p.Token, frame, why)
		}
		if pr.Flaw != ViolationProgressMissing && pr.Flaw != ViolationProgressNotNumber {
			r.info.w().Progress = &pr // the latest value that is one
		}
		r.info.w().ProgressCount++
		if len(r.info.m().ProgressHistory) < maxProgressHistory {
			r.info.w().ProgressHistory = append(r.info.m().ProgressHistory, pr)
		}
		if r.resetOnProgress && r.timers != nil && r.timers.timer != nil {
			r.timers.timer.Reset(r.timers.timeout)
		}
		s.emit(ProgressUpdated{Ref: r.info.Ref(), Progress: pr})
	case Cancelling, Cancelled, TimedOut:
		s.late(r, LateProgress, now, frame)
	default:
		s.violate(r, ViolationProgressAfterResponse, p.Token, frame,
			"progress for request "+r.info.ID.String()+" after its response ("+r.info.State.String()+"): progress must stop at completion")
		s.emit(StrayArrived{At: now, Kind: LateProgress, ID: token, Token: string(p.Token), Data: kept(frame), Size: len(frame)})
	}
}

// jsonProblem says in words what encoding/json found wrong, without Go's
// type names.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	if te.Field == "" {
		return "params is a " + te.Value + ", not an object"
	}
	return te.Field + " is a " + te.Value + ", which is the wrong type"
}

// CheckProgressValue reads the progress member of notifications/progress
// (nil when absent): a finite number, or the flaw it has. The transcript
// writer judges progress by it, as the session does.
func CheckProgressValue(raw json.RawMessage) (float64, ViolationKind) {
	f, flaw, _ := progressValue(raw)
	return f, flaw
}

// progressValue reads the progress member: a finite number, or a flaw
// and why.
func progressValue(raw json.RawMessage) (float64, ViolationKind, string) {
	if raw == nil {
		return 0, ViolationProgressMissing, "notifications/progress has no progress member"
	}
	var f float64
	// null decodes as nothing at all: check it first.
	if err := json.Unmarshal(raw, &f); string(raw) == "null" || err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, ViolationProgressNotNumber, "progress " + clipText(string(raw), 40) + " is not a finite number"
	}
	return f, NoViolation, ""
}

// formatFloat writes f as JSON would.
func formatFloat(f float64) string { return string(appendFloat(nil, f)) }

package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Incoming is a request the peer sent us, as a Handler sees it.
type Incoming struct {
	ID     ID
	Method string
	Params json.RawMessage

	s     *Session
	r     *request
	token ID // _meta.progressToken, if the peer asked for progress
}

// Session is the session the request arrived on.
func (in *Incoming) Session() *Session { return in.s }

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
	return in.s.send(b)
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

// handleRequest starts a handler for an incoming request.
func (s *Session) handleRequest(m *wireMessage) {
	id, err := ParseID(m.ID)
	if err != nil {
		_ = s.send(appendError(nil, ID{}, &RPCError{Code: CodeInvalidRequest, Message: "invalid request id: " + string(m.ID)}))
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
		_ = s.send(appendError(nil, id, &RPCError{Code: CodeInvalidRequest, Message: "request id " + id.String() + " is already in use"}))
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	r := &request{
		info: RequestInfo{ID: id, Incoming: true, Method: m.Method,
			Tool: toolName(m.Method, m.Params), Params: m.Params, State: Pending, Started: s.clock.Now()},
		cancelHandler: cancel,
	}
	s.table.add(r)
	if len(s.subs) > 0 {
		s.emit(RequestStarted{Info: r.info})
	}
	if h == nil {
		s.mu.Unlock()
		cancel()
		s.respond(r, nil, &RPCError{Code: CodeMethodNotFound, Message: "Method not found: " + m.Method})
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()

	in := &Incoming{ID: id, Method: m.Method, Params: m.Params, s: s, r: r}
	in.token, _ = progressTokenOf(m.Params)
	go func() {
		defer s.handlers.Done()
		defer cancel()
		res, err := h(ctx, in)
		s.respond(r, res, err)
	}()
}

// respond sends a handler's answer, unless the request was cancelled and
// the handler does not ignore cancellation.
func (s *Session) respond(r *request, res any, err error) {
	var frame []byte
	s.mu.Lock()
	s.table.answered(r)
	if r.info.State != Pending && !r.ignoreCancel {
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
	_ = s.send(frame)
}

func pingHandler(context.Context, *Incoming) (any, error) { return json.RawMessage(`{}`), nil }

// handleNotification applies the notifications the session owns and hands
// the rest to Config.Notifications.
func (s *Session) handleNotification(m *wireMessage, frame []byte) {
	switch m.Method {
	case "notifications/cancelled":
		s.handleCancelled(m.Params)
	case "notifications/progress":
		s.handleProgress(m.Params, frame)
	}
	if h := s.cfg.Notifications[m.Method]; h != nil {
		h(s, m.Params)
	}
}

// handleCancelled stops an incoming request the peer cancelled. Invalid
// cancellations (unknown id, finished request, malformed) are ignored and
// logged, as the spec asks.
func (s *Session) handleCancelled(params json.RawMessage) {
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
	r := s.table.incoming(id.raw)
	if r == nil || r.info.State != Pending {
		s.log.Info("cancel received: no such request in flight, ignored", "id", id.String(), "reason", p.Reason)
		return
	}
	now := s.clock.Now()
	ran := now.Sub(r.info.Started)
	r.info.CancelReason, r.info.CancelAt = p.Reason, now
	if r.ignoreCancel {
		s.log.Info("cancel received: handler ignores cancellation, will answer anyway",
			"id", id.String(), "method", r.info.Method, "tool", r.info.Tool, "reason", p.Reason, "ran", ran)
		return
	}
	s.log.Info("cancel received", "id", id.String(), "method", r.info.Method, "tool", r.info.Tool,
		"reason", p.Reason, "ran", ran)
	r.cancelHandler()
	s.setState(r, Cancelled, p.Reason)
}

// handleProgress applies notifications/progress to the request whose
// token it carries. Our tokens are our request ids.
func (s *Session) handleProgress(params json.RawMessage, frame []byte) {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    *float64        `json:"total"`
		Message  string          `json:"message"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.noise(params, 0, NoiseNotJSONRPC, fmt.Sprintf("malformed progress notification: %v", err))
		return
	}
	// Our tokens are our ids, matched by exact JSON text: token "1" is
	// not request 1's.
	token, err := ParseID(p.Token)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	var r *request
	if err == nil {
		r = s.table.outgoing(token.raw)
	}
	if r == nil {
		s.emit(StrayArrived{At: now, Kind: LateProgress, ID: token, Token: string(p.Token), Data: kept(frame), Size: len(frame)})
		return
	}
	switch r.info.State {
	case Pending:
		pr := Progress{At: now, Progress: p.Progress, Total: p.Total, Message: p.Message}
		r.info.Progress = &pr
		r.info.ProgressCount++
		if len(r.info.ProgressHistory) < maxProgressHistory {
			r.info.ProgressHistory = append(r.info.ProgressHistory, pr)
		}
		if r.resetOnProgress && r.timer != nil {
			r.timer.Reset(r.timeout)
		}
		s.emit(ProgressUpdated{Ref: r.info.Ref(), Progress: pr})
	case Cancelling, Cancelled, TimedOut:
		s.late(r, LateProgress, now, frame)
	default:
		s.emit(StrayArrived{At: now, Kind: LateProgress, ID: token, Token: string(p.Token), Data: kept(frame), Size: len(frame)})
	}
}

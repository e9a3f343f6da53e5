package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// maxSpansOpen bounds the host's requests whose spans are open at once
// (pending, or cancelled and waiting for a late answer); past it the
// oldest is ended as it is.
const maxSpansOpen = 10_000

// lateWatch is how long a cancelled request's span stays open for a
// late answer to land in it as an event: a proxy over HTTP runs on after
// its hosts, and a span is exported only once it ends.
const lateWatch = 10 * time.Second

// Spans exports the host's requests as OpenTelemetry client spans, as
// mcpoke exports its own (internal/otelspan): one per request the host
// sent, named and attributed as the MCP semantic conventions say, with
// the events progress, cancel sent and late answer, and the status of
// its outcome. A request whose _meta carries a W3C traceparent gets its
// span in that trace, a child of the host's span; others start a trace.
// The proxy only watches: nothing is added to the frames.
//
// Feed it the recorder's records (Observe); Close ends what is open.
type Spans struct {
	tracer    trace.Tracer
	transport string
	lateWatch time.Duration

	mu     sync.Mutex
	open   map[spanKey]*hostSpan // by host session and the request's id
	order  []spanKey             // keys in the order sent, for the bound
	tokens map[spanKey]spanKey   // progress token → request, per session
	closed bool
}

// spanKey names a host request: over HTTP two host sessions (s1, s2, ...)
// may use the same id; over stdio session is "".
type spanKey struct{ session, id string }

// hostSpan is one host request's span while it is open.
type hostSpan struct {
	span      trace.Span
	token     string
	progress  int
	runFirst  time.Time
	runCount  int
	cancelled bool
	lastAt    time.Time
	lateEnd   *time.Timer // ends a cancelled span when no late answer came
}

// NewSpans exports through tracer; transport is network.transport
// ("pipe" for stdio, "tcp" for HTTP).
func NewSpans(tracer trace.Tracer, transport string) *Spans {
	return &Spans{tracer: tracer, transport: transport, lateWatch: lateWatch, open: map[spanKey]*hostSpan{}, tokens: map[spanKey]spanKey{}}
}

// spanMessage is what a span needs of a frame.
type spanMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name          string          `json:"name"`
		URI           string          `json:"uri"`
		RequestID     json.RawMessage `json:"requestId"`
		Reason        string          `json:"reason"`
		ProgressToken json.RawMessage `json:"progressToken"`
		Meta          struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			TraceParent   string          `json:"traceparent"`
		} `json:"_meta"`
	} `json:"params"`
	Result struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func spanMessages(frame []byte) []spanMessage {
	frame = bytes.TrimLeft(frame, " \t\r")
	if len(frame) > 0 && frame[0] == '[' {
		var batch []spanMessage
		_ = json.Unmarshal(frame, &batch)
		return batch
	}
	var m spanMessage
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(frame, &m); err != nil && !errors.As(err, &typeErr) {
		return nil
	}
	return []spanMessage{m}
}

// Observe takes one record of the relay: the frames, and the relay's
// events that end a request without an answer (a closed stream, the kill
// switch, the host's or the server's going).
func (s *Spans) Observe(r wire.Record) {
	var msgs []spanMessage
	switch r.Kind {
	case wire.KindFrame:
		msgs = spanMessages(r.Data)
	case wire.KindRelay:
	default:
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if r.Kind == wire.KindRelay {
		s.relay(r)
		return
	}
	for _, m := range msgs {
		s.message(r.Dir, r.Session, r.At, m)
	}
}

func (s *Spans) message(dir wire.Direction, sess string, at time.Time, m spanMessage) {
	switch {
	case dir == wire.Out && m.Method != "" && len(m.ID) > 0:
		s.start(sess, at, m)
	case dir == wire.Out && m.Method == "notifications/cancelled":
		s.cancelled(spanKey{sess, compact(m.Params.RequestID)}, at, "notifications/cancelled", m.Params.Reason)
	case dir == wire.In && m.Method == "notifications/progress":
		k, ok := s.tokens[spanKey{sess, compact(m.Params.ProgressToken)}]
		if h := s.open[k]; ok && h != nil {
			if h.runCount == 0 {
				h.runFirst = at
			}
			h.runCount++
			h.progress++
			h.lastAt = at
		}
	case dir == wire.In && m.Method == "" && len(m.ID) > 0:
		k := spanKey{sess, compact(m.ID)}
		if h := s.open[k]; h != nil {
			s.answered(h, at, m)
			s.end(k, at)
		}
	}
}

// cancelled marks k's span cancelled at at: an event with the cancel's
// form and reason, error.type cancelled. The span stays open for a late
// answer, for lateWatch at most; a closed stream can carry none, so its
// span ends at once.
func (s *Spans) cancelled(k spanKey, at time.Time, form, reason string) {
	h := s.open[k]
	if h == nil {
		return
	}
	if h.cancelled { // cancelled before: only a closed stream changes that
		if form == "stream closed" { // nothing late can come on it now
			s.end(k, at)
		}
		return
	}
	s.flushRun(h)
	h.cancelled, h.lastAt = true, at
	h.span.AddEvent("cancel sent", trace.WithTimestamp(at), trace.WithAttributes(
		attribute.String("mcpoke.cancel.form", form), attribute.String("mcpoke.cancel.reason", reason)))
	h.span.SetAttributes(attribute.String("error.type", "cancelled"))
	h.span.SetStatus(codes.Error, reason)
	if form == "stream closed" {
		s.end(k, at)
		return
	}
	h.lateEnd = time.AfterFunc(s.lateWatch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.closed && s.open[k] == h {
			s.end(k, h.lastAt)
		}
	})
}

// relay reads the relay's events as Watcher does: a host that closed a
// request's response stream cancelled it (2026-07-28 over HTTP), as did
// the proxy's kill switch; a host that went, or a server that exited,
// leaves its pending requests without an answer, and their spans end
// there. The proxy's other words end nothing.
func (s *Spans) relay(r wire.Record) {
	event := string(r.Data)
	if id, ok := strings.CutPrefix(event, EventStreamClosed); ok {
		s.cancelled(spanKey{r.Session, id}, r.At, "stream closed", ReasonStream)
		return
	}
	if id, ok := ProxyCancelledID(event); ok {
		s.cancelled(spanKey{r.Session, id}, r.At, "notifications/cancelled", ReasonProxyKilled)
		return
	}
	why := ReasonServerGone + ": " + event
	switch {
	case event == EventHostClosed:
		why = ReasonHostGone
	case event == EventHostGone, event == EventServerClosed, event == EventStopped,
		strings.Contains(event, " relays to: "), strings.HasPrefix(event, ProxyWords):
		return
	}
	for _, k := range s.order {
		if h := s.open[k]; h != nil && !h.cancelled {
			h.lastAt = r.At
			h.span.SetAttributes(attribute.String("error.type", "session_closed"))
			h.span.SetStatus(codes.Error, why)
			s.end(k, r.At)
		}
	}
}

func (s *Spans) start(sess string, at time.Time, m spanMessage) {
	id := compact(m.ID)
	k := spanKey{sess, id}
	if s.open[k] != nil {
		return // an id reused while open: the first keeps its span
	}
	name := m.Method
	attrs := []attribute.KeyValue{attribute.String("mcp.method.name", m.Method), attribute.String("jsonrpc.request.id", id),
		attribute.String("network.transport", s.transport)}
	if sess != "" {
		attrs = append(attrs, attribute.String("mcpoke.proxy.host_session", sess))
	}
	switch m.Method {
	case "tools/call":
		attrs = append(attrs, attribute.String("gen_ai.operation.name", "execute_tool"))
		if m.Params.Name != "" {
			name += " " + m.Params.Name
			attrs = append(attrs, attribute.String("gen_ai.tool.name", m.Params.Name))
		}
	case "prompts/get":
		if m.Params.Name != "" {
			name += " " + m.Params.Name
			attrs = append(attrs, attribute.String("gen_ai.prompt.name", m.Params.Name))
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if m.Params.URI != "" {
			attrs = append(attrs, attribute.String("mcp.resource.uri", m.Params.URI))
		}
	}
	ctx := context.Background()
	// The host's own trace context, when it sent a valid one; a
	// malformed one starts a new trace, as W3C says.
	if tp, sampled, ok := session.ParseTraceParent(m.Params.Meta.TraceParent); ok {
		cfg := trace.SpanContextConfig{TraceID: tp.TraceID, SpanID: tp.SpanID, Remote: true}
		if sampled {
			cfg.TraceFlags = trace.FlagsSampled
		}
		ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(cfg))
	}
	_, span := s.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	h := &hostSpan{span: span, lastAt: at}
	if tok := m.Params.Meta.ProgressToken; len(tok) > 0 {
		h.token = compact(tok)
		s.tokens[spanKey{sess, h.token}] = k
	}
	s.open[k] = h
	s.order = append(s.order, k)
	if len(s.open) > maxSpansOpen || len(s.order) > 2*len(s.open)+64 {
		s.trim()
	}
}

// answered sets the span's outcome from the answer m.
func (s *Spans) answered(h *hostSpan, at time.Time, m spanMessage) {
	s.flushRun(h)
	if h.cancelled {
		// The span keeps the cancel's status: the answer is late.
		h.span.AddEvent("late response", trace.WithTimestamp(at),
			trace.WithAttributes(attribute.Int64("mcpoke.late.after_cancel_ms", at.Sub(h.lastAt).Milliseconds())))
		return
	}
	switch {
	case m.Error != nil:
		code := strconv.FormatInt(m.Error.Code, 10)
		h.span.SetAttributes(attribute.String("error.type", code), attribute.String("rpc.response.status_code", code))
		h.span.SetStatus(codes.Error, m.Error.Message)
	case m.Result.IsError:
		h.span.SetAttributes(attribute.String("error.type", "tool_error"))
		h.span.SetStatus(codes.Error, "the tool's result has isError")
	}
}

// end ends the span of k at at.
func (s *Spans) end(k spanKey, at time.Time) {
	h := s.open[k]
	if h == nil {
		return
	}
	s.flushRun(h)
	if h.lateEnd != nil {
		h.lateEnd.Stop()
	}
	h.span.SetAttributes(attribute.Int("mcpoke.progress.count", h.progress))
	h.span.End(trace.WithTimestamp(at))
	delete(s.open, k)
	if tk := (spanKey{k.session, h.token}); h.token != "" && s.tokens[tk] == k {
		delete(s.tokens, tk)
	}
}

// trim ends the oldest open spans past the bound, and forgets the ids
// of those already ended (amortised: it runs when order doubled).
func (s *Spans) trim() {
	keep := s.order[:0]
	for _, k := range s.order {
		if h := s.open[k]; h != nil {
			if len(s.open) > maxSpansOpen {
				s.end(k, h.lastAt)
				continue
			}
			keep = append(keep, k)
		}
	}
	s.order = keep
}

// flushRun writes a run of progress as one event, as the timeline draws it.
func (s *Spans) flushRun(h *hostSpan) {
	if h.runCount == 0 {
		return
	}
	h.span.AddEvent("progress", trace.WithTimestamp(h.runFirst), trace.WithAttributes(attribute.Int("mcpoke.progress.count", h.runCount)))
	h.runCount = 0
}

// Close ends every open span: a pending one with error.type
// session_closed (the host or server went before its answer), a
// cancelled one at the last thing it saw.
func (s *Spans) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, k := range s.order {
		h := s.open[k]
		if h == nil {
			continue
		}
		at := h.lastAt
		if !h.cancelled {
			h.span.SetAttributes(attribute.String("error.type", "session_closed"))
			h.span.SetStatus(codes.Error, "the proxy stopped before the request got its answer")
			at = time.Now()
		}
		s.end(k, at)
	}
	s.order = nil
}

package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
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

	mu     sync.Mutex
	open   map[string]*hostSpan // by the request's id, compacted
	order  []string             // ids in the order sent, for the bound
	tokens map[string]string    // progress token → request id
	closed bool
}

// hostSpan is one host request's span while it is open.
type hostSpan struct {
	span      trace.Span
	token     string
	progress  int
	runFirst  time.Time
	runCount  int
	cancelled bool
	lastAt    time.Time
}

// NewSpans exports through tracer; transport is network.transport
// ("pipe" for stdio, "tcp" for HTTP).
func NewSpans(tracer trace.Tracer, transport string) *Spans {
	return &Spans{tracer: tracer, transport: transport, open: map[string]*hostSpan{}, tokens: map[string]string{}}
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

// Observe takes one record of the relay.
func (s *Spans) Observe(r wire.Record) {
	if r.Kind != wire.KindFrame {
		return
	}
	msgs := spanMessages(r.Data)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, m := range msgs {
		s.message(r.Dir, r.At, m)
	}
}

func (s *Spans) message(dir wire.Direction, at time.Time, m spanMessage) {
	switch {
	case dir == wire.Out && m.Method != "" && len(m.ID) > 0:
		s.start(at, m)
	case dir == wire.Out && m.Method == "notifications/cancelled":
		if h := s.open[compact(m.Params.RequestID)]; h != nil && !h.cancelled {
			s.flushRun(h)
			h.cancelled, h.lastAt = true, at
			h.span.AddEvent("cancel sent", trace.WithTimestamp(at), trace.WithAttributes(
				attribute.String("mcpoke.cancel.form", "notifications/cancelled"), attribute.String("mcpoke.cancel.reason", m.Params.Reason)))
			h.span.SetAttributes(attribute.String("error.type", "cancelled"))
			h.span.SetStatus(codes.Error, m.Params.Reason)
		}
	case dir == wire.In && m.Method == "notifications/progress":
		id, ok := s.tokens[compact(m.Params.ProgressToken)]
		if h := s.open[id]; ok && h != nil {
			if h.runCount == 0 {
				h.runFirst = at
			}
			h.runCount++
			h.progress++
			h.lastAt = at
		}
	case dir == wire.In && m.Method == "" && len(m.ID) > 0:
		id := compact(m.ID)
		if h := s.open[id]; h != nil {
			s.answered(h, at, m)
			s.end(id, at)
		}
	}
}

func (s *Spans) start(at time.Time, m spanMessage) {
	id := compact(m.ID)
	if s.open[id] != nil {
		return // an id reused while open: the first keeps its span
	}
	name := m.Method
	attrs := []attribute.KeyValue{attribute.String("mcp.method.name", m.Method), attribute.String("jsonrpc.request.id", id),
		attribute.String("network.transport", s.transport)}
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
		s.tokens[h.token] = id
	}
	s.open[id] = h
	s.order = append(s.order, id)
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

// end ends the span of id at at.
func (s *Spans) end(id string, at time.Time) {
	h := s.open[id]
	if h == nil {
		return
	}
	s.flushRun(h)
	h.span.SetAttributes(attribute.Int("mcpoke.progress.count", h.progress))
	h.span.End(trace.WithTimestamp(at))
	delete(s.open, id)
	if h.token != "" && s.tokens[h.token] == id {
		delete(s.tokens, h.token)
	}
}

// trim ends the oldest open spans past the bound, and forgets the ids
// of those already ended (amortised: it runs when order doubled).
func (s *Spans) trim() {
	keep := s.order[:0]
	for _, id := range s.order {
		if h := s.open[id]; h != nil {
			if len(s.open) > maxSpansOpen {
				s.end(id, h.lastAt)
				continue
			}
			keep = append(keep, id)
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
	for _, id := range s.order {
		h := s.open[id]
		if h == nil {
			continue
		}
		at := h.lastAt
		if !h.cancelled {
			h.span.SetAttributes(attribute.String("error.type", "session_closed"))
			h.span.SetStatus(codes.Error, "the proxy stopped before the request got its answer")
			at = time.Now()
		}
		s.end(id, at)
	}
	s.order = nil
}

package otlprecv

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Span is a span received, as sent: its text is untrusted.
type Span struct {
	TraceID, SpanID, ParentSpanID string // hex; malformed ids are kept as hex of what came
	Name, Service                 string
	Start, End                    time.Time
	// Status is "ok", "error" or "" (unset); StatusMessage goes with error.
	Status, StatusMessage string
	Events                []Event
	Attributes            map[string]string
}

// Event is a span event.
type Event struct {
	Name string
	At   time.Time
}

// Bounds of one span kept: its events and attributes past these are
// left out, its text clipped (a span's name is a few words, an id 16
// bytes).
const (
	maxEventsPerSpan     = 100
	maxAttributesPerSpan = 64
	maxText              = 1024
	maxIDBytes           = 32
)

// keep stores the spans of msg up to MaxSpans and the receiver's bytes;
// it returns how many it turned away.
func (r *Receiver) keep(msg *coltracepb.ExportTraceServiceRequest) (rejected int) {
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		service := attrString(rs.GetResource().GetAttributes(), "service.name")
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				got = append(got, spanOf(sp, service))
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := 0
	for _, sp := range got {
		size := sp.size()
		if len(r.spans) >= MaxSpans || r.keptBytes+size > r.maxKeptBytes {
			rejected++
			continue
		}
		r.spans = append(r.spans, sp)
		r.keptBytes += size
		kept++
	}
	r.dropped += rejected
	if kept > 0 {
		close(r.arrived)
		r.arrived = make(chan struct{})
	}
	return rejected
}

func spanOf(sp *tracepb.Span, service string) Span {
	s := Span{TraceID: hexID(sp.GetTraceId()), SpanID: hexID(sp.GetSpanId()),
		ParentSpanID: hexID(sp.GetParentSpanId()), Name: clipText(sp.GetName()), Service: clipText(service),
		Start: unixNano(sp.GetStartTimeUnixNano()), End: unixNano(sp.GetEndTimeUnixNano())}
	switch sp.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_OK:
		s.Status = "ok"
	case tracepb.Status_STATUS_CODE_ERROR:
		s.Status, s.StatusMessage = "error", clipText(sp.GetStatus().GetMessage())
	}
	for i, ev := range sp.GetEvents() {
		if i == maxEventsPerSpan {
			break
		}
		s.Events = append(s.Events, Event{Name: clipText(ev.GetName()), At: unixNano(ev.GetTimeUnixNano())})
	}
	for i, kv := range sp.GetAttributes() {
		if i == maxAttributesPerSpan {
			break
		}
		if s.Attributes == nil {
			s.Attributes = map[string]string{}
		}
		s.Attributes[clipText(kv.GetKey())] = clipText(valueString(kv.GetValue()))
	}
	return s
}

// size is about what s holds in memory: its text and a share for the
// rest, counted against MaxKeptBytes.
func (s Span) size() int {
	n := 160 + len(s.TraceID) + len(s.SpanID) + len(s.ParentSpanID) + len(s.Name) + len(s.Service) + len(s.Status) + len(s.StatusMessage)
	for _, ev := range s.Events {
		n += 48 + len(ev.Name)
	}
	for k, v := range s.Attributes {
		n += 64 + len(k) + len(v)
	}
	return n
}

// clipText keeps at most maxText bytes of s, cut at a character's start,
// in a string of its own: a kept slice would hold the whole of what came.
func clipText(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := maxText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + "…"
}

// hexID is an id in hex; one longer than any id (malformed) is cut.
func hexID(b []byte) string {
	if len(b) > maxIDBytes {
		b = b[:maxIDBytes]
	}
	return hex.EncodeToString(b)
}

func unixNano(n uint64) time.Time {
	if n == 0 || n > 1<<62 {
		return time.Time{}
	}
	return time.Unix(0, int64(n))
}

func attrString(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return valueString(kv.GetValue())
		}
	}
	return ""
}

func valueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	}
	return ""
}

// Trace returns the spans kept for traceID (hex), oldest first.
func (r *Receiver) Trace(traceID string) []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Span
	for _, s := range r.spans {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// Arrived is closed when the next batch of spans has been kept.
func (r *Receiver) Arrived() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.arrived
}

// Dropped counts the spans turned away past MaxSpans.
func (r *Receiver) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// WaitTrace waits until a span of traceID arrived and then quiet more
// passed without another batch, or ctx ends; it returns what is kept.
func (r *Receiver) WaitTrace(ctx context.Context, traceID string, quiet time.Duration) []Span {
	for {
		r.mu.Lock()
		arrived := r.arrived
		r.mu.Unlock()
		if len(r.Trace(traceID)) > 0 {
			select {
			case <-arrived:
				continue
			case <-time.After(quiet):
				return r.Trace(traceID)
			case <-ctx.Done():
				return r.Trace(traceID)
			}
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return r.Trace(traceID)
		}
	}
}

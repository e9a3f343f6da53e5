package otlprecv

import (
	"context"
	"encoding/hex"
	"strconv"
	"time"

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

const maxEventsPerSpan = 100

// keep stores the spans of msg up to MaxSpans; it returns how many it
// turned away.
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
	room := MaxSpans - len(r.spans)
	if room < len(got) {
		rejected = len(got) - max(room, 0)
		got = got[:max(room, 0)]
		r.dropped += rejected
	}
	if len(got) > 0 {
		r.spans = append(r.spans, got...)
		close(r.arrived)
		r.arrived = make(chan struct{})
	}
	return rejected
}

func spanOf(sp *tracepb.Span, service string) Span {
	s := Span{TraceID: hex.EncodeToString(sp.GetTraceId()), SpanID: hex.EncodeToString(sp.GetSpanId()),
		ParentSpanID: hex.EncodeToString(sp.GetParentSpanId()), Name: sp.GetName(), Service: service,
		Start: unixNano(sp.GetStartTimeUnixNano()), End: unixNano(sp.GetEndTimeUnixNano())}
	switch sp.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_OK:
		s.Status = "ok"
	case tracepb.Status_STATUS_CODE_ERROR:
		s.Status, s.StatusMessage = "error", sp.GetStatus().GetMessage()
	}
	for i, ev := range sp.GetEvents() {
		if i == maxEventsPerSpan {
			break
		}
		s.Events = append(s.Events, Event{Name: ev.GetName(), At: unixNano(ev.GetTimeUnixNano())})
	}
	for i, kv := range sp.GetAttributes() {
		if i == 64 {
			break
		}
		if s.Attributes == nil {
			s.Attributes = map[string]string{}
		}
		s.Attributes[kv.GetKey()] = valueString(kv.GetValue())
	}
	return s
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

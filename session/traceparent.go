package session

import (
	"encoding/hex"
	"math/rand/v2"
)

// MetaTraceParent is the _meta key of W3C trace context that protocol
// 2026-07-28 reserves (with tracestate and baggage); mcpoke sends it in
// every era when Config.Trace is on.
const MetaTraceParent = "traceparent"

// TraceParent is the W3C trace context of one request: the trace it
// belongs to and the id of the client span that sent it.
type TraceParent struct {
	TraceID [16]byte
	SpanID  [8]byte
}

// IsZero reports whether t is unset (a request sent without --trace).
func (t TraceParent) IsZero() bool { return t == TraceParent{} }

// String is the traceparent header value, version 00, sampled:
// 00-<32 hex>-<16 hex>-01.
func (t TraceParent) String() string {
	if t.IsZero() {
		return ""
	}
	var b [55]byte
	copy(b[:], "00-")
	hex.Encode(b[3:35], t.TraceID[:])
	b[35] = '-'
	hex.Encode(b[36:52], t.SpanID[:])
	copy(b[52:], "-01")
	return string(b[:])
}

// TraceIDString is the trace id in hex, as tracing backends show it.
func (t TraceParent) TraceIDString() string { return hex.EncodeToString(t.TraceID[:]) }

// NewTraceParent draws a fresh trace and span id; neither is ever all
// zeros, which W3C trace context forbids.
func NewTraceParent() TraceParent {
	var t TraceParent
	for t.TraceID == [16]byte{} {
		putUint64(t.TraceID[:8], rand.Uint64())
		putUint64(t.TraceID[8:], rand.Uint64())
	}
	for t.SpanID == [8]byte{} {
		putUint64(t.SpanID[:], rand.Uint64())
	}
	return t
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (56 - 8*i))
	}
}

// appendTraceParent appends the "traceparent" member of t to members
// (which hold other members, or nothing).
func appendTraceParent(members []byte, t TraceParent) []byte {
	if len(members) > 0 {
		members = append(members, ',')
	}
	members = append(members, `"`+MetaTraceParent+`":"`...)
	members = append(members, t.String()...)
	return append(members, '"')
}

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
func (t *TraceParent) IsZero() bool { return t == nil || *t == TraceParent{} }

// String is the traceparent header value, version 00, sampled:
// 00-<32 hex>-<16 hex>-01.
func (t *TraceParent) String() string {
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
func (t *TraceParent) TraceIDString() string {
	if t.IsZero() {
		return ""
	}
	return hex.EncodeToString(t.TraceID[:])
}

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
func appendTraceParent(members []byte, t *TraceParent) []byte {
	if len(members) > 0 {
		members = append(members, ',')
	}
	members = append(members, `"`+MetaTraceParent+`":"`...)
	members = append(members, t.String()...)
	return append(members, '"')
}

// ParseTraceParent reads a W3C traceparent header value. It refuses what
// the spec says to ignore: a wrong length for version 00, version ff,
// upper-case or non-hex digits, an all-zero trace or span id. A value from
// a peer is untrusted; ok false means "start a new trace".
func ParseTraceParent(v string) (t TraceParent, sampled bool, ok bool) {
	if len(v) < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return TraceParent{}, false, false
	}
	if v[:2] == "ff" || (v[:2] == "00" && len(v) != 55) || (len(v) > 55 && v[55] != '-') {
		return TraceParent{}, false, false
	}
	var ver, flags [1]byte
	if !lowerHex(v[:2]) || !lowerHex(v[3:35]) || !lowerHex(v[36:52]) || !lowerHex(v[53:55]) {
		return TraceParent{}, false, false
	}
	_, _ = hex.Decode(ver[:], []byte(v[:2]))
	_, _ = hex.Decode(t.TraceID[:], []byte(v[3:35]))
	_, _ = hex.Decode(t.SpanID[:], []byte(v[36:52]))
	_, _ = hex.Decode(flags[:], []byte(v[53:55]))
	if t.TraceID == [16]byte{} || t.SpanID == [8]byte{} {
		return TraceParent{}, false, false
	}
	return t, flags[0]&1 == 1, true
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

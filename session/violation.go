package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
)

// ViolationKind names a rule of JSON-RPC 2.0 or MCP that a frame from
// the peer broke. The zero value, NoViolation, means none.
type ViolationKind uint8

const (
	NoViolation ViolationKind = iota
	// ViolationMalformedError: the error member is not an object with an
	// integer code and a string message. The request fails; its error
	// says so and quotes the bytes, and no code is made up for it.
	ViolationMalformedError
	// ViolationResultAndError: a response with both result and error.
	// The request fails: neither member is taken for the answer.
	ViolationResultAndError
	// ViolationJSONRPCVersion: jsonrpc missing or other than "2.0". The
	// message is used as if it were 2.0.
	ViolationJSONRPCVersion
	// ViolationNonIntegerID: an id or progressToken that is a number with
	// a fraction (MCP ids are strings or integers). A request with one is
	// refused with -32600; a response or progress with one is stray.
	ViolationNonIntegerID
	// ViolationBatch: a JSON array of messages under protocol 2025-06-18
	// or later, which removed batches. Its messages are still handled.
	ViolationBatch
	// ViolationProgressMissing: notifications/progress without progress.
	ViolationProgressMissing
	// ViolationProgressNotNumber: progress that is not a finite number.
	ViolationProgressNotNumber
	// ViolationProgressNotIncreasing: progress not above the previous
	// one (the spec says it MUST increase). The value is kept.
	ViolationProgressNotIncreasing
	// ViolationProgressAfterResponse: progress for a request that was
	// already answered (progress MUST stop at completion). It is stray.
	ViolationProgressAfterResponse
	// ViolationServerCancel: under protocol 2026-07-28 the server sent
	// notifications/cancelled for something other than one of our
	// subscriptions/listen requests, the only use it may make of it. It
	// is ignored.
	ViolationServerCancel
	// ViolationSubscriptionUnknown: a notification tagged with a
	// subscriptionId that names none of our subscriptions/listen requests.
	ViolationSubscriptionUnknown
	// ViolationSubscriptionBeforeAck: a notification on a subscription
	// before its acknowledgement, which the spec puts first.
	ViolationSubscriptionBeforeAck
	// ViolationServerRequest: under protocol 2026-07-28 the server sent
	// a request, which it must not (multi round-trip requests replaced
	// them). It is handled all the same.
	ViolationServerRequest
	// ViolationMalformedTask: a CreateTaskResult, or an answer to tasks/get,
	// that is not a usable task (no taskId, another task's, a task id
	// created twice).
	ViolationMalformedTask
	// ViolationUnsolicitedTask: a CreateTaskResult for a request that did
	// not ask for a task. It is taken as the result, and no task is
	// followed.
	ViolationUnsolicitedTask
)

var violationNames = [...]string{"", "malformed_error", "result_and_error", "jsonrpc_version", "non_integer_id",
	"batch", "progress_missing", "progress_not_a_number", "progress_not_increasing", "progress_after_response",
	"server_cancel", "subscription_unknown", "subscription_before_ack", "server_request", "malformed_task", "unsolicited_task"}

// String implements fmt.Stringer with the names used in JSON output and
// transcripts; "" for NoViolation.
func (k ViolationKind) String() string { return enumName(violationNames[:], k) }

// MarshalText implements encoding.TextMarshaler.
func (k ViolationKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Violation reports a frame from the peer broke a rule of JSON-RPC or MCP. It
// comes besides the frame's other events (the request's state, progress,
// stray); Detail says what the session did with it.
type Violation struct {
	At   time.Time
	Kind ViolationKind
	// Ref names our request the frame concerns; Seq is 0 when none.
	Ref Ref
	// ID is the id or progressToken the frame names, as JSON text; ""
	// when it names none.
	ID string
	// Detail says what exactly was wrong, in words.
	Detail string
	// Frame is the start of the frame (at most MaxViolationFrame bytes);
	// Size is its whole length.
	Frame []byte
	Size  int
}

func (Violation) event() {}

// MaxViolationFrame bounds the bytes of a frame a Violation keeps: a
// flood of bad frames costs little.
const MaxViolationFrame = 512

// violate tells subscribers that frame broke a rule. r is our request it
// concerns, or nil. Callers hold s.mu.
func (s *Session) violate(r *request, kind ViolationKind, id []byte, frame []byte, detail string) {
	v := Violation{At: s.clock.Now(), Kind: kind, ID: string(id), Detail: detail,
		Frame: bytes.Clone(frame[:min(len(frame), MaxViolationFrame)]), Size: len(frame)}
	if r != nil {
		v.Ref = r.info.Ref()
	}
	s.emit(v)
	s.log.Warn("protocol violation", "kind", kind.String(), "id", v.ID, "detail", detail)
}

// envelopeViolations checks what every message must have: jsonrpc
// "2.0", and an id that is a string or an integer. Callers report them.
func envelopeViolations(m *wireMessage) (kinds []ViolationKind, details []string) {
	if m.JSONRPC != "2.0" {
		d := "no jsonrpc member; JSON-RPC 2.0 requires \"jsonrpc\":\"2.0\""
		if m.JSONRPC != "" {
			d = fmt.Sprintf("jsonrpc is %s, not \"2.0\"", clipText(m.JSONRPC, 40))
		}
		kinds, details = append(kinds, ViolationJSONRPCVersion), append(details, d)
	}
	if fractionalNumber(m.ID) {
		kinds = append(kinds, ViolationNonIntegerID)
		details = append(details, fmt.Sprintf("id %s is not an integer; MCP ids are strings or integers", clipText(string(m.ID), 40)))
	}
	return kinds, details
}

// CheckMessage returns the violations one message shows on its own bytes,
// whatever came before it: jsonrpc, id type, both result and error, a
// malformed error object. The transcript writer notes them with the same
// rules as the session. frame must be one message, not a batch.
func CheckMessage(frame []byte) []ViolationKind {
	if !jsonscan.Valid(frame) {
		return nil
	}
	return CheckValidMessage(frame)
}

// CheckValidMessage is CheckMessage for a frame already known to be
// valid JSON (a transcript checks each frame once).
func CheckValidMessage(frame []byte) []ViolationKind {
	var m wireMessage
	if parseEnvelope(frame, &m) != nil {
		return nil
	}
	kinds, _ := envelopeViolations(&m)
	if m.isResponse() {
		if m.Result != nil && m.Error != nil {
			kinds = append(kinds, ViolationResultAndError)
		}
		if m.Error != nil {
			if _, why := parseErrorObject(m.Error); why != "" {
				kinds = append(kinds, ViolationMalformedError)
			}
		}
	}
	return kinds
}

// BatchesAllowed reports whether a protocol version allows JSON-RPC
// batches: 2025-06-18 removed them; earlier versions, and an unknown
// version (""), allow them.
func BatchesAllowed(version string) bool { return version == "" || version < "2025-06-18" }

// fractionalNumber reports whether raw is a JSON number that is not an
// integer, such as 1.5. 1.0 and 1e3 are integers.
func fractionalNumber(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return false
	}
	if !bytes.ContainsAny(raw, ".eE") {
		return false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && f != math.Trunc(f)
}

// parseErrorObject reads a JSON-RPC error member. why is "" when it is
// well formed, else what is wrong with it; then the error is nil and no
// code is made up.
func parseErrorObject(raw []byte) (e *RPCError, why string) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil || f == nil {
		return nil, "the error member is not an object"
	}
	e = &RPCError{Data: f["data"]}
	switch code, ok := f["code"]; {
	case !ok:
		return nil, "the error object has no code"
	case json.Unmarshal(code, &e.Code) != nil:
		var fl float64
		if json.Unmarshal(code, &fl) != nil || fl != math.Trunc(fl) || math.Abs(fl) > 1<<53 {
			return nil, "its code " + clipText(string(code), 40) + " is not an integer"
		}
		e.Code = int64(fl)
	}
	switch msg, ok := f["message"]; {
	case !ok:
		return nil, "the error object has no message"
	case json.Unmarshal(msg, &e.Message) != nil:
		return nil, "its message " + clipText(string(msg), 40) + " is not a string"
	}
	return e, ""
}

// clipText keeps s to n bytes for a message.
func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

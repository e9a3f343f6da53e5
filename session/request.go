package session

import (
	"encoding/json"
	"time"
)

// Progress is one notifications/progress for a request.
type Progress struct {
	At       time.Time `json:"-"`
	Progress float64   `json:"progress"`
	Total    *float64  `json:"total,omitempty"`
	Message  string    `json:"message,omitempty"`
	// Flaw is the rule this notification broke, if any. With
	// ViolationProgressMissing or ViolationProgressNotNumber there is no
	// value: Progress is 0 and must not be shown as one.
	Flaw ViolationKind `json:"flaw,omitempty"`
}

// LateKind says what kind of late or stray traffic arrived.
type LateKind uint8

const (
	LateResponse LateKind = iota
	LateError
	LateProgress
	// LateStatus is a task's status (notifications/tasks/status or the
	// answer to tasks/get) after its cancel.
	LateStatus
)

// String implements fmt.Stringer with the names used in JSON output.
func (k LateKind) String() string {
	switch k {
	case LateResponse:
		return "response"
	case LateError:
		return "error"
	case LateProgress:
		return "progress"
	case LateStatus:
		return "status"
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler.
func (k LateKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// LateFrame is traffic that arrived for a request after we cancelled it or
// it timed out.
type LateFrame struct {
	Kind LateKind
	At   time.Time
	// AfterCancel is how long after the cancellation was written
	// (CancelSentAt) it arrived: the gap between the two records of the
	// tap, the very readings the wire log and transcript show. Traffic
	// that the session reads after the cancel was decided but that the
	// tap took before the cancel was written is never delivered either: it
	// is late with AfterCancel 0 (a transcript, which knows only the wire,
	// shows it as an answer before the cancel). An initialize that timed
	// out is never cancelled on the wire; its late traffic counts from the
	// timeout.
	AfterCancel time.Duration
	// Data is the start of the frame, at most MaxKept bytes; Size its
	// full length.
	Data []byte
	Size int
}

// Limits on what one request keeps, so that a flooding peer cannot grow a
// request without bound. Counts keep going past them.
const (
	maxProgressHistory = 1000
	maxLateFrames      = 1000
)

// RequestInfo is a snapshot of one request. Slices in it are shared with
// the session and must not be modified.
type RequestInfo struct {
	Seq uint64
	ID  ID
	// Incoming is true for a request the peer sent us.
	Incoming bool
	Method   string
	// Session names the host session of a request a proxy relayed over
	// HTTP (mcpoke attach: s1, s2, ... by Mcp-Session-Id), whose ids may
	// repeat across sessions; "" for the session's own requests.
	Session string
	// Tool is params.name of a tools/call.
	Tool   string
	Params json.RawMessage
	State  State
	// TraceParent is the trace context sent in the request's _meta
	// (Config.Trace); nil when none was, which keeps the row small.
	TraceParent *TraceParent

	// Timeout is how long the request waits for an answer (restarted by
	// progress when it resets), and MaxTimeout the hard limit; 0: none.
	Timeout, MaxTimeout time.Duration
	// ResetsOnProgress: progress restarts Timeout
	// (CallOptions.ResetTimeoutOnProgress).
	ResetsOnProgress bool

	Started time.Time
	// Ended is when the state became final.
	Ended time.Time

	// Progress is the latest progress with a value (see Progress.Flaw);
	// ProgressCount counts every notification, and
	// ProgressHistory keeps the first maxProgressHistory.
	Progress        *Progress
	ProgressCount   int
	ProgressHistory []Progress

	Result json.RawMessage
	// ResultType is the result's resultType: "complete" when the server
	// sent none, or in a session of an earlier version (which has no such
	// field), else as sent, such as "input_required" (multi round-trip
	// requests) or "task".
	ResultType string
	Error      *RPCError
	// Failure says why a request failed without an error response, such
	// as the server exiting.
	Failure string
	// Listening is what a subscriptions/listen request has heard; nil
	// for other requests and before its acknowledgement.
	Listening *Listening
	// EndedByPeer says how the peer ended a request that has no answer of
	// its own, such as a subscriptions/listen stream the server tore down.
	EndedByPeer string
	// LostAt is set when the request was lost: its response stream broke
	// before the answer under protocol 2026-07-28, which has no
	// resumption. It failed; the way on is to re-issue it under a new id.
	LostAt time.Time

	CancelReason string
	// CancelAt is when we decided to cancel (or the timeout fired): from
	// then on nothing is delivered as the request's result.
	CancelAt time.Time
	// CancelSentAt is when the cancellation was written to the transport
	// (or its write failed): the time on its wire record when the
	// transport is a tap. Late traffic is timed from it. Zero until then,
	// and for ever for a timed-out initialize.
	CancelSentAt time.Time
	// CancelWire says what the cancellation did on the wire.
	CancelWire CancelWire

	// Late keeps the first maxLateFrames late frames; LateCount counts
	// them all, and LateKinds by LateKind.
	Late       []LateFrame
	LateCount  int
	LateKinds  [4]int
	Duplicates int

	// Round links a multi round-trip retry to its original request.
	Round Round
	// Housekeeping: sent by the client on its own (CallOptions.Housekeeping).
	Housekeeping bool

	// TaskID is set on a task row (see taskCreated): the task the server
	// created for the request Task.Parent names. A task is cancelled with
	// tasks/cancel, never notifications/cancelled.
	TaskID string
	// Task is what the row has to do with tasks; nil for most requests,
	// which keeps the row small.
	Task *TaskInfo
}

// TaskParent names the row this one belongs to (see TaskInfo.Parent);
// Seq 0 when none.
func (r RequestInfo) TaskParent() Ref {
	if r.Task == nil {
		return Ref{}
	}
	return r.Task.Parent
}

// TaskRow names the task row the request created with its
// CreateTaskResult; Seq 0 when none.
func (r RequestInfo) TaskRow() Ref {
	if r.Task == nil {
		return Ref{}
	}
	return r.Task.Row
}

// LateFrom is when late traffic starts to count: when the cancellation
// reached the transport, or, before that and for an initialize that timed
// out, when it was decided. Zero when the request was never cancelled.
func (r RequestInfo) LateFrom() time.Time {
	if !r.CancelSentAt.IsZero() {
		return r.CancelSentAt
	}
	return r.CancelAt
}

// Ref returns the reference events use for this request.
func (r *RequestInfo) Ref() Ref { return Ref{Seq: r.Seq, ID: r.ID, Incoming: r.Incoming} }

// Ran is how long the request ran as far as the server was told: a
// cancelled request ran until its cancel was written, not until the settle
// window closed; anything else until it ended, or until now.
func (r *RequestInfo) Ran(now time.Time) time.Duration {
	if (r.State == Cancelling || r.State == Cancelled) && !r.CancelSentAt.IsZero() {
		return r.CancelSentAt.Sub(r.Started)
	}
	return r.Elapsed(now)
}

// Settled is how long a cancelled request was watched after its cancel
// was written: the settle window, the session watching rather than the
// server running. ok is false for any other request.
func (r *RequestInfo) Settled() (d time.Duration, ok bool) {
	if r.State != Cancelled || r.CancelSentAt.IsZero() || r.Ended.IsZero() {
		return 0, false
	}
	return r.Ended.Sub(r.CancelSentAt), true
}

// Elapsed is how long the request ran, or has run so far at now.
func (r *RequestInfo) Elapsed(now time.Time) time.Duration {
	if !r.Ended.IsZero() {
		return r.Ended.Sub(r.Started)
	}
	return now.Sub(r.Started)
}

package rows

import (
	"encoding/json"
	"time"

	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// What one row keeps, so a flood cannot grow a row without bound.
const (
	ProgressHistory = 200
	rowLateFrames   = 1000
)

// Row is the screen's state of one request, kept up to date from
// session events. Stray rows stand for responses and progress that
// matched no request. What most rows never have (progress, a cancel,
// late traffic, a task, a stray's data, a subscription, a question,
// rounds) hangs off nil-able pointers, so that a plain row stays small;
// the ...OrNone accessors read them without a nil check.
type Row struct {
	Seq     uint64 // the session's Seq; 0 for stray rows
	ID      session.ID
	Method  string
	Tool    string
	Params  json.RawMessage
	State   session.State
	Started time.Time
	Ended   time.Time
	// Timeout and MaxTimeout are the request's, as the session armed them;
	// the timeout key may change Timeout from the time it was set.
	Timeout, MaxTimeout time.Duration
	// Reason is the cancel or timeout reason, or why it failed.
	Reason string
	// Trace is the request's traceparent (--trace), to find its spans.
	Trace *session.TraceParent
	// HostSession is the host session of a proxied request over HTTP
	// (s1, s2, ...; attach): sessions may share ids.
	HostSession string

	Progress *Progress
	// Cancel is set once the request is being cancelled or timed out.
	Cancel *Cancel
	// Late is the traffic that came after the cancel or timeout.
	Late       *Late
	Duplicates int
	Stray      *Stray
	// Listen is what a subscriptions/listen row heard.
	Listen *Listening
	// Task is set on a task row, on the request that created one and on
	// the requests sent for one (tasks/result, tasks/cancel).
	Task *Task
	// Info is the session's full record, fetched once the row settled:
	// result, error, failure and cancel times live there.
	Info *session.RequestInfo
	// Ask is set for a request of the server's that asked a question.
	Ask *Ask
	// Retry links a multi round-trip retry to its original; Rounds is set
	// on a row that answered input_required.
	Retry  *session.Round
	Rounds *Rounds
	// Reissue links a request lost with its stream and its re-issue.
	Reissue *Reissue
	// Hold is a proxy's hold on the answer (mcpoke attach), from when
	// it began.
	Hold *Hold

	ord     uint64 // place in the table, by arrival
	version uint64 // changes whenever the row does, so views can cache

	Incoming bool
	// Resets: progress restarts the timeout.
	Resets bool
	// ToolError: a tools/call result with isError: true.
	ToolError bool
	// EraProbe: a server/discover that failed or timed out, after which
	// initialize reached a legacy era: auto mode's probe of a legacy
	// server, shown neutrally and left out of the header's failures.
	EraProbe bool
	// Relayed: the request passed a proxy (mcpoke attach), which passed
	// its late answer on to its sender.
	Relayed bool
}

// Hold is a proxy's hold on the answer to a row's request (mcpoke
// attach: the hold key, --delay, --answer-after-cancel): it kept the
// server's answer from the host from At until Ended (zero while it still
// holds it), then passed it on, or dropped it (Dropped): the host never
// got it.
type Hold struct {
	At, Ended time.Time
	Dropped   bool
}

// Holding reports whether the proxy holds the row's answer now.
func (r *Row) Holding() bool { return r.Hold != nil && r.Hold.Ended.IsZero() }

// HoldChanged is a Batch item of an attached proxy's: its hold on the
// answer to request Ref began, or ended.
type HoldChanged struct {
	Ref  session.Ref
	Hold Hold
}

// Progress is a row's progress notifications.
type Progress struct {
	Latest  session.Progress
	Count   int
	History []session.Progress // the newest ProgressHistory
}

// Cancel is when a row's request was given up on, and how the cancel
// went out.
type Cancel struct {
	// At is when it was decided: the cancel, or the timeout.
	At time.Time
	// SentAt is when the cancellation was written; SendErr says why it
	// could not be. From session.CancelSent, which comes after the state
	// change that fetched Info.
	SentAt  time.Time
	SendErr error
	Wire    session.CancelWire
}

// Late is the traffic that came for a row after its cancel or timeout.
type Late struct {
	Frames    []session.LateFrame // the first rowLateFrames
	Responses int
	Progress  int
	// Statuses counts a task's statuses after the cancel; OddStatuses
	// those other than cancelled: the server says its task goes on, or
	// ended some other way.
	Statuses, OddStatuses int
	// FirstDelay is the delay of the first late response or error.
	FirstDelay time.Duration
	// Last is the newest late frame: while they keep coming, the row
	// says the server is still sending.
	Last session.LateFrame
}

// Stray is what a stray row stands for: responses or progress that
// matched no request.
type Stray struct {
	Kind  session.LateKind
	Count int
	Token string
	Data  []byte
}

// Task is a row's part in tasks (see tasks.go): on a task row its task
// id, the request that created it, the task as the server last gave it,
// its statuses, polls, and what came of tasks/cancel; on the creator,
// Created is the task row's Seq.
type Task struct {
	ID      string
	Parent  session.Ref
	Created uint64
	State   *session.TaskState
	Updates []session.TaskUpdate
	Polls   int
	Cancel  *session.TaskCancelAnswer
	// Extension: the task is the 2026-07-28 tasks extension's; Outcome
	// says how it ended after its (cooperative) cancel.
	Extension bool
	Outcome   string
}

// The zero values the ...OrNone accessors hand out: read only.
var (
	noProgress Progress
	noCancel   Cancel
	noLate     Late
	noStray    Stray
	noTask     Task
)

// ProgressOrNone is r.Progress, or an empty one; never to be changed.
func (r *Row) ProgressOrNone() *Progress { return orNone(r.Progress, &noProgress) }

// CancelOrNone is r.Cancel, or an empty one; never to be changed.
func (r *Row) CancelOrNone() *Cancel { return orNone(r.Cancel, &noCancel) }

// LateOrNone is r.Late, or an empty one; never to be changed.
func (r *Row) LateOrNone() *Late { return orNone(r.Late, &noLate) }

// StrayOrNone is r.Stray, or an empty one; never to be changed.
func (r *Row) StrayOrNone() *Stray { return orNone(r.Stray, &noStray) }

// TaskOrNone is r.Task, or an empty one; never to be changed.
func (r *Row) TaskOrNone() *Task { return orNone(r.Task, &noTask) }

func orNone[T any](p, none *T) *T {
	if p == nil {
		return none
	}
	return p
}

// IsStray reports whether the row stands for stray traffic.
func (r *Row) IsStray() bool { return r.Stray != nil }

// Version changes whenever the row does, so views can cache.
func (r *Row) Version() uint64 { return r.version }

// Touch marks the row changed.
func (r *Row) Touch() { r.version++ }

// Ref names the row's request to the session.
func (r *Row) Ref() session.Ref {
	return session.Ref{Seq: r.Seq, ID: r.ID, Incoming: r.Incoming}
}

// Label is how the row is named in messages: "#3 tools/call sleep".
func (r *Row) Label() string {
	// A server chooses the ids of incoming and stray traffic.
	id := termtext.Line(r.ID.String())
	if r.HostSession != "" {
		id = termtext.Line(r.HostSession) + ":" + id // as the ID column shows it
	}
	s := "#" + id
	if r.IsStray() {
		return "stray " + r.Method
	}
	if r.Incoming {
		s = "incoming #" + id
	}
	if r.IsTask() {
		s += " task"
	} else {
		s += " " + r.Method
	}
	if r.Tool != "" {
		s += " " + r.Tool
	}
	return s
}

// Lost reports whether the row's request was lost: its stream broke
// before the answer under protocol 2026-07-28, and r re-issues it.
func (r *Row) Lost() bool { return r.Info != nil && !r.Info.LostAt.IsZero() }

// SentAt is when the row's cancellation was written, from the event or,
// once fetched, the session's record; zero until then.
func (r *Row) SentAt() time.Time {
	if sent := r.CancelOrNone().SentAt; !sent.IsZero() || r.Info == nil {
		return sent
	}
	return r.Info.CancelSentAt
}

// RanUntil is when the request stopped running as far as the server was
// told: a cancelled request ran until the cancel was sent, not until the
// settle window closed; anything else until it ended, or now.
func (r *Row) RanUntil(now time.Time) time.Time {
	if r.State == session.Cancelling || r.State == session.Cancelled {
		if sent := r.SentAt(); !sent.IsZero() {
			return sent
		}
	}
	if !r.Ended.IsZero() {
		return r.Ended
	}
	return now
}

// Ran is how long the request ran, measured as RanUntil says.
func (r *Row) Ran(now time.Time) time.Duration { return r.RanUntil(now).Sub(r.Started) }

// Settled is the settle window a cancelled request was watched for: from
// the cancel being sent to the cancelled state.
func (r *Row) Settled() (time.Duration, bool) {
	sent := r.SentAt()
	if r.State != session.Cancelled || sent.IsZero() || r.Ended.IsZero() {
		return 0, false
	}
	return r.Ended.Sub(sent), true
}

// Ord is the row's place in the table, by arrival.
func (r *Row) Ord() uint64 { return r.ord }

// StillSendingFor is how recent the last late frame must be for a row to
// say the server is still sending.
const StillSendingFor = 3 * time.Second

// StillSending reports whether late progress for r came recently enough
// to call the server still busy with a request we gave up on.
func (r *Row) StillSending(now time.Time) bool {
	return r.Late != nil && r.Late.Progress > 0 && !r.Late.Last.At.IsZero() && now.Sub(r.Late.Last.At) < StillSendingFor
}

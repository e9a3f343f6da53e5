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

// Row is the UI's own state of one request, kept up to date from
// session events. Stray rows stand for responses and progress that
// matched no request.
type Row struct {
	// eraProbe: a server/discover that failed or timed out, after which
	// initialize reached a legacy era: auto mode's probe of a legacy
	// server, shown neutrally and left out of the header's failures.
	EraProbe bool
	ord      uint64 // place in the table, by arrival
	Seq      uint64 // the session's Seq; 0 for stray rows
	ID       session.ID
	Incoming bool
	Method   string
	Tool     string
	Params   json.RawMessage
	State    session.State

	Started, Ended, CancelAt time.Time
	// timeout and maxTimeout are the request's, as the session armed them;
	// the timeout key may change timeout from the time it was set.
	Timeout, MaxTimeout time.Duration
	// resets: progress restarts the timeout.
	Resets bool
	// reason is the cancel or timeout reason, or why it failed.
	Reason string

	Progress      *session.Progress
	ProgressCount int
	History       []session.Progress // the newest ProgressHistory

	// cancelSentAt is when the cancellation was written; cancelSendErr
	// says why it could not be. From session.CancelSent, which comes after
	// the state change that fetched info.
	CancelSentAt  time.Time
	CancelSendErr error
	CancelWire    session.CancelWire

	LateFrames    []session.LateFrame // the first rowLateFrames
	LateResponses int
	LateProgress  int
	FirstLate     time.Duration // delay of the first late response or error
	// lastLate is the newest late frame: while they keep coming, the row
	// says the server is still sending.
	LastLate   session.LateFrame
	Duplicates int

	IsStray    bool
	StrayKind  session.LateKind
	StrayCount int
	StrayToken string
	StrayData  []byte

	// listen is what a subscriptions/listen row heard; nil for others.
	Listen *Listening

	// toolError: a tools/call result with isError: true.
	ToolError bool

	// A task row (see task_rows.go): its task id, the request that
	// created it, the task as the server last gave it, its statuses,
	// polls, and what came of tasks/cancel. lateStatus counts statuses
	// after the cancel. createdTask is, on the creator, the task row's Seq.
	TaskID      string
	Parent      session.Ref
	TaskState   *session.TaskState
	TaskUpdates []session.TaskUpdate
	Polls       int
	TaskCancel  *session.TaskCancelAnswer
	LateStatus  int
	// lateStatusOdd counts the late statuses other than cancelled: the
	// server says its task goes on, or ended some other way.
	LateStatusOdd int
	CreatedTask   uint64
	// extension: the task is the 2026-07-28 tasks extension's; outcome
	// says how it ended after its (cooperative) cancel.
	Extension bool
	Outcome   string
	// info is the session's full record, fetched once the row settled:
	// result, error, failure and cancel times live there.
	Info *session.RequestInfo
	// ask is set for a request of the server's that asked a question.
	Ask *Ask
	// round links a multi round-trip retry to its original; mrtr is set
	// on a row that answered input_required.
	Round  session.Round
	Rounds *Rounds
	// relayed: the request passed a proxy (mcpoke attach), which passed
	// its late answer on to its sender.
	Relayed bool
	// version changes whenever the row does, so views can cache.
	Version uint64
}

func (r *Row) Touch() { r.Version++ }

// ref names the row's request to the session.
func (r *Row) Ref() session.Ref {
	return session.Ref{Seq: r.Seq, ID: r.ID, Incoming: r.Incoming}
}

// label is how the row is named in messages: "#3 tools/call sleep".
func (r *Row) Label() string {
	// A server chooses the ids of incoming and stray traffic.
	id := termtext.Line(r.ID.String())
	s := "#" + id
	if r.IsStray {
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

// lost reports whether the row's request was lost: its stream broke
// before the answer under protocol 2026-07-28, and r re-issues it.
func (r *Row) Lost() bool { return r.Info != nil && !r.Info.LostAt.IsZero() }

// sentAt is when the row's cancellation was written, from the event or,
// once fetched, the session's record; zero until then.
func (r *Row) SentAt() time.Time {
	if !r.CancelSentAt.IsZero() || r.Info == nil {
		return r.CancelSentAt
	}
	return r.Info.CancelSentAt
}

// ranUntil is when the request stopped running as far as the server was
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

// ran is how long the request ran, measured as ranUntil says.
func (r *Row) Ran(now time.Time) time.Duration { return r.RanUntil(now).Sub(r.Started) }

// settled is the settle window a cancelled request was watched for: from
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

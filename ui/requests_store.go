package ui

import (
	"encoding/json"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// What one row keeps, so a flood cannot grow a row without bound.
const (
	rowProgressHistory = 200
	rowLateFrames      = 1000
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
	History       []session.Progress // the newest rowProgressHistory

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

// requestStore holds the rows in arrival order with an index by Seq.
type Store struct {
	Rows    []*Row
	bySeq   map[uint64]*Row
	strayBy map[string]*Row // stray progress, by token
	nextOrd uint64
	// counts are the session's totals by state: rows dropped from the
	// store stay counted, so the header stays exact; dropped counts them.
	Counts  [session.Cancelled + 1]int
	Dropped int
	// eraFallback: server/discover failed and initialize followed, so a
	// failed discover row is the era probe of a legacy server, no fault.
	EraFallback bool
	// relayed: the rows are a proxy's (mcpoke attach), whose late
	// answers went on to the host rather than being ignored.
	Relayed bool
	// keep is how many finished rows stay: maxFinishedRows, less in tests.
	Keep     int
	finished int
	// toolErrors counts the completed rows that are tool errors; they are
	// also in counts[Completed].
	ToolErrors int
	// lastLateAt is when late traffic last arrived for any row: the screen
	// keeps ticking while a row may still say "still sending".
	LastLateAt time.Time
	// version changes when rows are added or dropped.
	Version uint64
	// asks are the notes of the server's questions, by Seq.
	asks map[uint64]*Ask
}

// maxFinishedRows is how many finished requests the table keeps, like the
// session.
const MaxFinished = 10000

func NewStore() *Store {
	return &Store{bySeq: map[uint64]*Row{}, strayBy: map[string]*Row{}, Keep: MaxFinished}
}

func (s *Store) Len() int { return len(s.Rows) }

func (s *Store) append(r *Row) {
	s.nextOrd++
	r.ord = s.nextOrd
	s.Rows = append(s.Rows, r)
	s.Version++
}

// started adds the row for a new request; a task's poll gets none, its
// task row counts it, nor does housekeeping (health.go).
func (s *Store) started(info session.RequestInfo) *Row {
	if info.Housekeeping {
		return nil // a health ping: the header shows it, the wire log its frames
	}
	if isPoll(info) {
		s.polled(info)
		return nil
	}
	r := &Row{Seq: info.Seq, ID: info.ID, Incoming: info.Incoming, Method: info.Method,
		Tool: info.Tool, Params: mcp.ElideState(info.Params), State: info.State, Started: info.Started,
		Timeout: info.Timeout, MaxTimeout: info.MaxTimeout, Resets: info.ResetsOnProgress, Round: info.Round}
	if r.Tool == "" && !r.Incoming {
		// What a resources/read, prompts/get or completion is about.
		r.Tool = mcp.RequestTarget(r.Method, r.Params)
	}
	r.Relayed = s.Relayed
	s.append(r)
	s.bySeq[r.Seq] = r
	r.Ask = s.asks[r.Seq]
	r.Parent = info.TaskParent()
	if info.TaskID != "" {
		s.taskStarted(r, info)
	}
	s.Counts[r.State]++
	if r.State.Final() {
		s.finished++
	}
	return r
}

func (s *Store) Get(seq uint64) *Row { return s.bySeq[seq] }

// setInfo keeps the session's full record of a row and reads from it
// whether a tool call's result is a tool error.
func (s *Store) SetInfo(seq uint64, info session.RequestInfo) *Row {
	r := s.bySeq[seq]
	if r == nil {
		return nil
	}
	// A requestState may be megabytes: the row keeps a quote of it
	// (inputRequired reads the whole one from the session).
	info.Params, info.Result = mcp.ElideState(info.Params), mcp.ElideState(info.Result)
	r.Info = &info
	toolErr := false
	if r.Method == "tools/call" && r.State == session.Completed && len(info.Result) > 0 {
		res, err := mcp.ReadCallResult(info.Result)
		toolErr = err == nil && res.IsError
	}
	if toolErr != r.ToolError {
		r.ToolError = toolErr
		if toolErr {
			s.ToolErrors++
		} else {
			s.ToolErrors--
		}
	}
	r.Touch()
	return r
}

// stateChanged moves a row to its new state.
func (s *Store) stateChanged(e session.StateChanged) *Row {
	r := s.bySeq[e.Ref.Seq]
	if r == nil || r.State == e.To {
		return r
	}
	s.Counts[r.State]--
	s.Counts[e.To]++
	r.State = e.To
	switch e.To {
	case session.Cancelling:
		r.CancelAt = e.At
		r.Reason = e.Reason
	case session.TimedOut:
		r.CancelAt = e.At
	}
	switch {
	case r.Extension && e.From == session.Cancelling && e.To.Final():
		// How the task really ended, cancelling being cooperative; the
		// reason stays the cancel's.
		r.Outcome = e.Reason
	case e.Reason != "":
		r.Reason = e.Reason
	}
	if e.To.Final() {
		r.Ended = e.At
		s.finished++
	}
	s.markEraProbe(r)
	r.Touch()
	return r
}

// markEraProbes marks the era probe rows once the handshake has fallen
// back to a legacy era (eraFallback).
func (s *Store) MarkEraProbes() {
	for _, r := range s.Rows {
		s.markEraProbe(r)
	}
}

// markEraProbe marks r as auto mode's probe of a legacy server when it is
// one: it leaves the counts, so the header never counts it as a failure.
func (s *Store) markEraProbe(r *Row) {
	if !s.EraFallback || r.EraProbe || r.Incoming || r.Method != "server/discover" ||
		(r.State != session.Failed && r.State != session.TimedOut) {
		return
	}
	r.EraProbe = true
	s.Counts[r.State]--
	r.Touch()
}

// cancelSent records when a row's cancellation was written.
func (s *Store) cancelSent(e session.CancelSent) *Row {
	r := s.bySeq[e.Ref.Seq]
	if r == nil {
		return nil
	}
	r.CancelSentAt, r.CancelSendErr, r.CancelWire = e.At, e.Err, e.Wire
	r.Touch()
	return r
}

func (s *Store) progressed(run *ProgressRun) *Row {
	r := s.bySeq[run.Ref.Seq]
	if r == nil {
		return nil
	}
	p := run.Latest
	r.Progress = &p
	r.ProgressCount += run.Count
	r.History = append(r.History, run.Recent...)
	if n := len(r.History); n > rowProgressHistory+rowProgressHistory/2 {
		r.History = append(r.History[:0], r.History[n-rowProgressHistory:]...)
	}
	r.Touch()
	return r
}

func (s *Store) lateArrived(ref session.Ref, frames []session.LateFrame, last session.LateFrame, count int) *Row {
	r := s.bySeq[ref.Seq]
	if r == nil {
		return nil
	}
	if last.At.After(r.LastLate.At) {
		r.LastLate = last
	}
	if last.At.After(s.LastLateAt) {
		s.LastLateAt = last.At
	}
	responses := 0
	for _, f := range frames {
		if f.Kind == session.LateStatus {
			r.LateStatus++
			responses++ // not progress either
			if len(r.LateFrames) < rowLateFrames {
				r.LateFrames = append(r.LateFrames, f)
			}
			continue
		}
		if f.Kind != session.LateProgress {
			if r.LateResponses == 0 {
				r.FirstLate = f.AfterCancel
			}
			r.LateResponses++
			responses++
		}
		if len(r.LateFrames) < rowLateFrames {
			r.LateFrames = append(r.LateFrames, f)
		}
	}
	// Progress runs are folded: count says how many there were.
	r.LateProgress += count - responses
	r.Touch()
	return r
}

func (s *Store) duplicated(seq uint64, n int) *Row {
	r := s.bySeq[seq]
	if r == nil {
		return nil
	}
	r.Duplicates += n
	r.Touch()
	return r
}

// strayArrived adds a stray row; stray progress for one token shares a row.
func (s *Store) strayArrived(e session.StrayArrived) *Row {
	token, method := e.Token, strayMethod(e.Kind)
	if e.Kind == session.LateProgress {
		if r := s.strayBy[token]; r != nil {
			r.StrayCount++
			r.StrayData = e.Data
			r.Ended = e.At
			r.Touch()
			return r
		}
	}
	r := &Row{ID: e.ID, Method: method, IsStray: true, StrayKind: e.Kind, StrayCount: 1,
		StrayToken: token, StrayData: e.Data, Started: e.At, Ended: e.At, State: session.Completed}
	s.append(r)
	s.finished++
	if e.Kind == session.LateProgress {
		s.strayBy[token] = r
	}
	return r
}

// strayMethod names what kind of stray traffic a row shows.
func strayMethod(k session.LateKind) string {
	switch k {
	case session.LateProgress:
		return "notifications/progress"
	case session.LateError:
		return "error response"
	}
	return "response"
}

// trim drops the oldest finished rows once there are too many, in
// batches so the cost is amortized. It reports whether rows went.
func (s *Store) Trim() bool {
	if s.finished <= s.Keep+s.Keep/4 {
		return false
	}
	drop := s.finished - s.Keep
	kept := s.Rows[:0]
	for _, r := range s.Rows {
		if drop > 0 && (r.IsStray || r.State.Final()) {
			drop--
			s.finished--
			if r.IsStray {
				if r.StrayKind == session.LateProgress {
					delete(s.strayBy, r.StrayToken)
				}
			} else {
				s.Dropped++
				delete(s.bySeq, r.Seq)
			}
			continue
		}
		kept = append(kept, r)
	}
	clear(s.Rows[len(kept):])
	s.Rows = kept
	s.Version++
	return true
}

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

// requestRow is the UI's own state of one request, kept up to date from
// session events. Stray rows stand for responses and progress that
// matched no request.
type requestRow struct {
	// eraProbe: a server/discover that failed or timed out, after which
	// initialize reached a legacy era: auto mode's probe of a legacy
	// server, shown neutrally and left out of the header's failures.
	eraProbe bool
	ord      uint64 // place in the table, by arrival
	seq      uint64 // the session's Seq; 0 for stray rows
	id       session.ID
	// hostSession is the host session of a proxied request over HTTP
	// (s1, s2, ...; attach): sessions may share ids.
	hostSession string
	incoming    bool
	method      string
	tool        string
	params      json.RawMessage
	state       session.State

	started, ended, cancelAt time.Time
	// timeout and maxTimeout are the request's, as the session armed them;
	// the timeout key may change timeout from the time it was set.
	timeout, maxTimeout time.Duration
	// resets: progress restarts the timeout.
	resets bool
	// reason is the cancel or timeout reason, or why it failed.
	reason string

	progress      *session.Progress
	progressCount int
	history       []session.Progress // the newest rowProgressHistory

	// cancelSentAt is when the cancellation was written; cancelSendErr
	// says why it could not be. From session.CancelSent, which comes after
	// the state change that fetched info.
	cancelSentAt  time.Time
	cancelSendErr error
	cancelWire    session.CancelWire

	late          []session.LateFrame // the first rowLateFrames
	lateResponses int
	lateProgress  int
	firstLate     time.Duration // delay of the first late response or error
	// lastLate is the newest late frame: while they keep coming, the row
	// says the server is still sending.
	lastLate   session.LateFrame
	duplicates int

	stray      bool
	strayKind  session.LateKind
	strayCount int
	strayToken string
	strayData  []byte

	// listen is what a subscriptions/listen row heard; nil for others.
	listen *listening

	// toolError: a tools/call result with isError: true.
	toolError bool

	// A task row (see task_rows.go): its task id, the request that
	// created it, the task as the server last gave it, its statuses,
	// polls, and what came of tasks/cancel. lateStatus counts statuses
	// after the cancel. createdTask is, on the creator, the task row's Seq.
	taskID      string
	parent      session.Ref
	task        *session.TaskState
	taskUpdates []session.TaskUpdate
	polls       int
	taskCancel  *session.TaskCancelAnswer
	lateStatus  int
	// lateStatusOdd counts the late statuses other than cancelled: the
	// server says its task goes on, or ended some other way.
	lateStatusOdd int
	createdTask   uint64
	// extension: the task is the 2026-07-28 tasks extension's; outcome
	// says how it ended after its (cooperative) cancel.
	extension bool
	outcome   string
	// info is the session's full record, fetched once the row settled:
	// result, error, failure and cancel times live there.
	info *session.RequestInfo
	// ask is set for a request of the server's that asked a question.
	ask *rowAsk
	// round links a multi round-trip retry to its original; mrtr is set
	// on a row that answered input_required.
	round session.Round
	mrtr  *rowRounds
	// relayed: the request passed a proxy (mcpoke attach), which passed
	// its late answer on to its sender.
	relayed bool
	// version changes whenever the row does, so views can cache.
	version uint64
}

func (r *requestRow) touch() { r.version++ }

// ref names the row's request to the session.
func (r *requestRow) ref() session.Ref {
	return session.Ref{Seq: r.seq, ID: r.id, Incoming: r.incoming}
}

// label is how the row is named in messages: "#3 tools/call sleep".
func (r *requestRow) label() string {
	// A server chooses the ids of incoming and stray traffic.
	id := termtext.Line(r.id.String())
	s := "#" + id
	if r.hostSession != "" {
		id = termtext.Line(r.hostSession) + ":" + id // as the ID column shows it
		s = "#" + id
	}
	if r.stray {
		return "stray " + r.method
	}
	if r.incoming {
		s = "incoming #" + id
	}
	if r.isTask() {
		s += " task"
	} else {
		s += " " + r.method
	}
	if r.tool != "" {
		s += " " + r.tool
	}
	return s
}

// lost reports whether the row's request was lost: its stream broke
// before the answer under protocol 2026-07-28, and r re-issues it.
func (r *requestRow) lost() bool { return r.info != nil && !r.info.LostAt.IsZero() }

// sentAt is when the row's cancellation was written, from the event or,
// once fetched, the session's record; zero until then.
func (r *requestRow) sentAt() time.Time {
	if !r.cancelSentAt.IsZero() || r.info == nil {
		return r.cancelSentAt
	}
	return r.info.CancelSentAt
}

// ranUntil is when the request stopped running as far as the server was
// told: a cancelled request ran until the cancel was sent, not until the
// settle window closed; anything else until it ended, or now.
func (r *requestRow) ranUntil(now time.Time) time.Time {
	if r.state == session.Cancelling || r.state == session.Cancelled {
		if sent := r.sentAt(); !sent.IsZero() {
			return sent
		}
	}
	if !r.ended.IsZero() {
		return r.ended
	}
	return now
}

// ran is how long the request ran, measured as ranUntil says.
func (r *requestRow) ran(now time.Time) time.Duration { return r.ranUntil(now).Sub(r.started) }

// settled is the settle window a cancelled request was watched for: from
// the cancel being sent to the cancelled state.
func (r *requestRow) settled() (time.Duration, bool) {
	sent := r.sentAt()
	if r.state != session.Cancelled || sent.IsZero() || r.ended.IsZero() {
		return 0, false
	}
	return r.ended.Sub(sent), true
}

// requestStore holds the rows in arrival order with an index by Seq.
type requestStore struct {
	rows    []*requestRow
	bySeq   map[uint64]*requestRow
	strayBy map[string]*requestRow // stray progress, by token
	nextOrd uint64
	// counts are the session's totals by state: rows dropped from the
	// store stay counted, so the header stays exact; dropped counts them.
	counts  [session.Cancelled + 1]int
	dropped int
	// eraFallback: server/discover failed and initialize followed, so a
	// failed discover row is the era probe of a legacy server, no fault.
	eraFallback bool
	// relayed: the rows are a proxy's (mcpoke attach), whose late
	// answers went on to the host rather than being ignored.
	relayed bool
	// keep is how many finished rows stay: maxFinishedRows, less in tests.
	keep     int
	finished int
	// toolErrors counts the completed rows that are tool errors; they are
	// also in counts[Completed].
	toolErrors int
	// lastLateAt is when late traffic last arrived for any row: the screen
	// keeps ticking while a row may still say "still sending".
	lastLateAt time.Time
	// version changes when rows are added or dropped.
	version uint64
	// asks are the notes of the server's questions, by Seq.
	asks map[uint64]*rowAsk
}

// maxFinishedRows is how many finished requests the table keeps, like the
// session.
const maxFinishedRows = 10000

func newRequestStore() *requestStore {
	return &requestStore{bySeq: map[uint64]*requestRow{}, strayBy: map[string]*requestRow{}, keep: maxFinishedRows}
}

func (s *requestStore) len() int { return len(s.rows) }

func (s *requestStore) append(r *requestRow) {
	s.nextOrd++
	r.ord = s.nextOrd
	s.rows = append(s.rows, r)
	s.version++
}

// started adds the row for a new request; a task's poll gets none, its
// task row counts it, nor does housekeeping (health.go).
func (s *requestStore) started(info session.RequestInfo) *requestRow {
	if info.Housekeeping {
		return nil // a health ping: the header shows it, the wire log its frames
	}
	if isPoll(info) {
		s.polled(info)
		return nil
	}
	r := &requestRow{seq: info.Seq, id: info.ID, incoming: info.Incoming, method: info.Method,
		tool: info.Tool, params: mcp.ElideState(info.Params), state: info.State, started: info.Started,
		timeout: info.Timeout, maxTimeout: info.MaxTimeout, resets: info.ResetsOnProgress, round: info.Round,
		hostSession: info.Session}
	if r.tool == "" && !r.incoming {
		// What a resources/read, prompts/get or completion is about.
		r.tool = mcp.RequestTarget(r.method, r.params)
	}
	r.relayed = s.relayed
	s.append(r)
	s.bySeq[r.seq] = r
	r.ask = s.asks[r.seq]
	r.parent = info.TaskParent()
	if info.TaskID != "" {
		s.taskStarted(r, info)
	}
	s.counts[r.state]++
	if r.state.Final() {
		s.finished++
	}
	return r
}

func (s *requestStore) get(seq uint64) *requestRow { return s.bySeq[seq] }

// setInfo keeps the session's full record of a row and reads from it
// whether a tool call's result is a tool error.
func (s *requestStore) setInfo(seq uint64, info session.RequestInfo) *requestRow {
	r := s.bySeq[seq]
	if r == nil {
		return nil
	}
	// A requestState may be megabytes: the row keeps a quote of it
	// (inputRequired reads the whole one from the session).
	info.Params, info.Result = mcp.ElideState(info.Params), mcp.ElideState(info.Result)
	r.info = &info
	toolErr := false
	if r.method == "tools/call" && r.state == session.Completed && len(info.Result) > 0 {
		res, err := mcp.ReadCallResult(info.Result)
		toolErr = err == nil && res.IsError
	}
	if toolErr != r.toolError {
		r.toolError = toolErr
		if toolErr {
			s.toolErrors++
		} else {
			s.toolErrors--
		}
	}
	r.touch()
	return r
}

// stateChanged moves a row to its new state.
func (s *requestStore) stateChanged(e session.StateChanged) *requestRow {
	r := s.bySeq[e.Ref.Seq]
	if r == nil || r.state == e.To {
		return r
	}
	s.counts[r.state]--
	s.counts[e.To]++
	r.state = e.To
	switch e.To {
	case session.Cancelling:
		r.cancelAt = e.At
		r.reason = e.Reason
	case session.TimedOut:
		r.cancelAt = e.At
	}
	switch {
	case r.extension && e.From == session.Cancelling && e.To.Final():
		// How the task really ended, cancelling being cooperative; the
		// reason stays the cancel's.
		r.outcome = e.Reason
	case e.Reason != "":
		r.reason = e.Reason
	}
	if e.To.Final() {
		r.ended = e.At
		s.finished++
	}
	s.markEraProbe(r)
	r.touch()
	return r
}

// markEraProbes marks the era probe rows once the handshake has fallen
// back to a legacy era (eraFallback).
func (s *requestStore) markEraProbes() {
	for _, r := range s.rows {
		s.markEraProbe(r)
	}
}

// markEraProbe marks r as auto mode's probe of a legacy server when it is
// one: it leaves the counts, so the header never counts it as a failure.
func (s *requestStore) markEraProbe(r *requestRow) {
	if !s.eraFallback || r.eraProbe || r.incoming || r.method != "server/discover" ||
		(r.state != session.Failed && r.state != session.TimedOut) {
		return
	}
	r.eraProbe = true
	s.counts[r.state]--
	r.touch()
}

// cancelSent records when a row's cancellation was written.
func (s *requestStore) cancelSent(e session.CancelSent) *requestRow {
	r := s.bySeq[e.Ref.Seq]
	if r == nil {
		return nil
	}
	r.cancelSentAt, r.cancelSendErr, r.cancelWire = e.At, e.Err, e.Wire
	r.touch()
	return r
}

func (s *requestStore) progressed(run *progressRun) *requestRow {
	r := s.bySeq[run.Ref.Seq]
	if r == nil {
		return nil
	}
	p := run.Latest
	r.progress = &p
	r.progressCount += run.Count
	r.history = append(r.history, run.Recent...)
	if n := len(r.history); n > rowProgressHistory+rowProgressHistory/2 {
		r.history = append(r.history[:0], r.history[n-rowProgressHistory:]...)
	}
	r.touch()
	return r
}

func (s *requestStore) lateArrived(ref session.Ref, frames []session.LateFrame, last session.LateFrame, count int) *requestRow {
	r := s.bySeq[ref.Seq]
	if r == nil {
		return nil
	}
	if last.At.After(r.lastLate.At) {
		r.lastLate = last
	}
	if last.At.After(s.lastLateAt) {
		s.lastLateAt = last.At
	}
	responses := 0
	for _, f := range frames {
		if f.Kind == session.LateStatus {
			r.lateStatus++
			responses++ // not progress either
			if len(r.late) < rowLateFrames {
				r.late = append(r.late, f)
			}
			continue
		}
		if f.Kind != session.LateProgress {
			if r.lateResponses == 0 {
				r.firstLate = f.AfterCancel
			}
			r.lateResponses++
			responses++
		}
		if len(r.late) < rowLateFrames {
			r.late = append(r.late, f)
		}
	}
	// Progress runs are folded: count says how many there were.
	r.lateProgress += count - responses
	r.touch()
	return r
}

func (s *requestStore) duplicated(seq uint64, n int) *requestRow {
	r := s.bySeq[seq]
	if r == nil {
		return nil
	}
	r.duplicates += n
	r.touch()
	return r
}

// strayArrived adds a stray row; stray progress for one token shares a row.
func (s *requestStore) strayArrived(e session.StrayArrived) *requestRow {
	token, method := e.Token, strayMethod(e.Kind)
	if e.Kind == session.LateProgress {
		if r := s.strayBy[token]; r != nil {
			r.strayCount++
			r.strayData = e.Data
			r.ended = e.At
			r.touch()
			return r
		}
	}
	r := &requestRow{id: e.ID, method: method, stray: true, strayKind: e.Kind, strayCount: 1,
		strayToken: token, strayData: e.Data, started: e.At, ended: e.At, state: session.Completed}
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
func (s *requestStore) trim() bool {
	if s.finished <= s.keep+s.keep/4 {
		return false
	}
	drop := s.finished - s.keep
	kept := s.rows[:0]
	for _, r := range s.rows {
		if drop > 0 && (r.stray || r.state.Final()) {
			drop--
			s.finished--
			if r.stray {
				if r.strayKind == session.LateProgress {
					delete(s.strayBy, r.strayToken)
				}
			} else {
				s.dropped++
				delete(s.bySeq, r.seq)
			}
			continue
		}
		kept = append(kept, r)
	}
	clear(s.rows[len(kept):])
	s.rows = kept
	s.version++
	return true
}

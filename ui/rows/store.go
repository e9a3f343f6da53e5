package rows

import (
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// Store holds the rows in arrival order with an index by Seq. Its
// exported fields are for reading: the rows change through Apply.
type Store struct {
	// Rows are every row kept, oldest first.
	Rows    []*Row
	bySeq   map[uint64]*Row
	strayBy map[string]*Row // stray progress, by token
	nextOrd uint64
	// Counts are the session's totals by state: rows dropped from the
	// store stay counted, so the header stays exact; Dropped counts them.
	Counts  [session.Cancelled + 1]int
	Dropped int
	// EraFallback: server/discover failed and initialize followed, so a
	// failed discover row is the era probe of a legacy server, no fault.
	// Set it, then call MarkEraProbes.
	EraFallback bool
	// Relayed: the rows are a proxy's (mcpoke attach), whose late
	// answers went on to the host rather than being ignored.
	Relayed bool
	// Keep is how many finished rows stay: MaxFinished, less in tests.
	Keep     int
	finished int
	// ToolErrors counts the completed rows that are tool errors; they are
	// also in Counts[Completed].
	ToolErrors int
	// LastLateAt is when late traffic last arrived for any row: the screen
	// keeps ticking while a row may still say "still sending".
	LastLateAt time.Time
	// Version changes when rows are added or dropped.
	Version uint64
	// asks are the notes of the server's questions, by Seq.
	asks map[uint64]*Ask
	// reissues are the links of re-issued requests whose rows have not
	// started yet, by Seq.
	reissues map[uint64]*Reissue
}

// MaxFinished is how many finished requests the table keeps, like the
// session.
const MaxFinished = 10000

// NewStore returns an empty store that keeps MaxFinished finished rows.
func NewStore() *Store {
	return &Store{bySeq: map[uint64]*Row{}, strayBy: map[string]*Row{}, Keep: MaxFinished}
}

// Len is how many rows the store holds.
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
		Timeout: info.Timeout, MaxTimeout: info.MaxTimeout, Resets: info.ResetsOnProgress, Trace: info.TraceParent,
		HostSession: info.Session}
	if info.Round.Retry() {
		round := info.Round
		r.Retry = &round
	}
	if r.Tool == "" && !r.Incoming {
		// What a resources/read, prompts/get or completion is about.
		r.Tool = mcp.RequestTarget(r.Method, r.Params)
	}
	r.Relayed = s.Relayed
	s.append(r)
	s.bySeq[r.Seq] = r
	r.Ask = s.asks[r.Seq]
	if link := s.reissues[r.Seq]; link != nil {
		r.Reissue = link
		delete(s.reissues, r.Seq)
	}
	if parent := info.TaskParent(); parent.Seq != 0 {
		r.Task = &Task{Parent: parent}
	}
	if info.TaskID != "" {
		s.taskStarted(r, info)
	}
	s.Counts[r.State]++
	if r.State.Final() {
		s.finished++
	}
	return r
}

// Get is the row of request seq, or nil.
func (s *Store) Get(seq uint64) *Row { return s.bySeq[seq] }

// SetInfo keeps the session's full record of a row and reads from it
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
		r.cancel().At = e.At
		r.Reason = e.Reason
	case session.TimedOut:
		r.cancel().At = e.At
	}
	switch {
	case r.Task != nil && r.Task.Extension && e.From == session.Cancelling && e.To.Final():
		// How the task really ended, cancelling being cooperative; the
		// reason stays the cancel's.
		r.Task.Outcome = e.Reason
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

// MarkEraProbes marks the era probe rows once the handshake has fallen
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
	c := r.cancel()
	c.SentAt, c.SendErr, c.Wire = e.At, e.Err, e.Wire
	r.Touch()
	return r
}

func (s *Store) progressed(run *ProgressRun) *Row {
	r := s.bySeq[run.Ref.Seq]
	if r == nil {
		return nil
	}
	p := part(&r.Progress)
	p.Latest = run.Latest
	p.Count += run.Count
	p.History = append(p.History, run.Recent...)
	if n := len(p.History); n > ProgressHistory+ProgressHistory/2 {
		p.History = append(p.History[:0], p.History[n-ProgressHistory:]...)
	}
	r.Touch()
	return r
}

func (s *Store) lateArrived(ref session.Ref, frames []session.LateFrame, last session.LateFrame, count int) *Row {
	r := s.bySeq[ref.Seq]
	if r == nil {
		return nil
	}
	l := part(&r.Late)
	if last.At.After(l.Last.At) {
		l.Last = last
	}
	if last.At.After(s.LastLateAt) {
		s.LastLateAt = last.At
	}
	responses := 0
	for _, f := range frames {
		switch f.Kind {
		case session.LateStatus:
			l.Statuses++
			responses++ // not progress either
		case session.LateProgress:
		default: // a response or an error
			if l.Responses == 0 {
				l.FirstDelay = f.AfterCancel
			}
			l.Responses++
			responses++
		}
		if len(l.Frames) < rowLateFrames {
			l.Frames = append(l.Frames, f)
		}
	}
	// Progress runs are folded: count says how many there were.
	l.Progress += count - responses
	r.Touch()
	return r
}

// Duplicated counts n more answers to the request seq than the one it
// took.
func (s *Store) Duplicated(seq uint64, n int) *Row {
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
			r.Stray.Count++
			r.Stray.Data = e.Data
			r.Ended = e.At
			r.Touch()
			return r
		}
	}
	r := &Row{ID: e.ID, Method: method, Stray: &Stray{Kind: e.Kind, Count: 1, Token: token, Data: e.Data},
		Started: e.At, Ended: e.At, State: session.Completed}
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

// Trim drops the oldest finished rows once there are too many, in
// batches so the cost is amortized. It reports whether rows went.
func (s *Store) Trim() bool {
	if s.finished <= s.Keep+s.Keep/4 {
		return false
	}
	drop := s.finished - s.Keep
	kept := s.Rows[:0]
	for _, r := range s.Rows {
		if drop > 0 && (r.IsStray() || r.State.Final()) {
			drop--
			s.finished--
			if r.IsStray() {
				if r.Stray.Kind == session.LateProgress {
					delete(s.strayBy, r.Stray.Token)
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

// cancel is r.Cancel, made when it is the first news of a cancel.
func (r *Row) cancel() *Cancel {
	return part(&r.Cancel)
}

// part is the part of a row that p holds, made on first use: most rows
// never have a cancel, late traffic, progress, a task or a listen.
func part[T any](p **T) *T {
	if *p == nil {
		*p = new(T)
	}
	return *p
}

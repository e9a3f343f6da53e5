package session

import (
	"encoding/json"
	"time"
)

// rowInfo is what the table keeps of a request: what every request has
// in line, and what only some ever have (a cancel, late traffic,
// progress, a failure without an error) behind more, nil until
// the first of them. The table holds thousands of rows and the garbage
// collector scans them all: a round trip that ends as it should keeps
// about half of what a whole RequestInfo takes. RequestInfo is the
// snapshot the session hands out (snapshot).
type rowInfo struct {
	Seq    uint64
	ID     ID
	Method string
	// Tool is params.name of a tools/call.
	Tool       string
	ResultType string
	TaskID     string
	Params     json.RawMessage
	Result     json.RawMessage
	Error      *RPCError
	Task       *TaskInfo
	// TraceParent is nil when no trace context was sent.
	TraceParent *TraceParent

	Started, Ended time.Time

	State            State
	Incoming         bool
	Housekeeping     bool
	ResetsOnProgress bool

	more *rowMore
}

// rowMore is what few requests have; see rowInfo.
type rowMore struct {
	Progress        *Progress
	ProgressCount   int
	ProgressHistory []Progress

	Failure     string
	Listening   *Listening
	EndedByPeer string
	LostAt      time.Time

	CancelReason string
	CancelAt     time.Time
	CancelSentAt time.Time
	CancelWire   CancelWire

	Late       []LateFrame
	LateCount  int
	LateKinds  [4]int
	Duplicates int

	Round Round
}

// m reads the rare part, the zero one when the row has none. It returns
// a copy, so that a write through it does not compile: write with w.
func (i *rowInfo) m() rowMore {
	if i.more == nil {
		return rowMore{}
	}
	return *i.more
}

// w is the rare part to write, made on first use.
func (i *rowInfo) w() *rowMore {
	if i.more == nil {
		i.more = &rowMore{}
	}
	return i.more
}

// Ref returns the reference events use for this request.
func (i *rowInfo) Ref() Ref { return Ref{Seq: i.Seq, ID: i.ID, Incoming: i.Incoming} }

// snapshot is the row as the session hands it out. Slices in it are
// shared with the row (see RequestInfo).
func (r *request) snapshot() RequestInfo {
	i := &r.info
	info := RequestInfo{
		Seq: i.Seq, ID: i.ID, Incoming: i.Incoming, Method: i.Method, Tool: i.Tool,
		Params: i.Params, State: i.State, TraceParent: i.TraceParent,
		ResetsOnProgress: i.ResetsOnProgress, Started: i.Started, Ended: i.Ended,
		Result: i.Result, ResultType: i.ResultType, Error: i.Error,
		Housekeeping: i.Housekeeping, TaskID: i.TaskID, Task: i.Task,
	}
	if t := r.timers; t != nil {
		info.Timeout, info.MaxTimeout = t.timeout, t.maxTimeout
	}
	if m := i.more; m != nil {
		info.Progress, info.ProgressCount, info.ProgressHistory = m.Progress, m.ProgressCount, m.ProgressHistory
		info.Failure, info.Listening, info.EndedByPeer, info.LostAt = m.Failure, m.Listening, m.EndedByPeer, m.LostAt
		info.CancelReason, info.CancelAt, info.CancelSentAt, info.CancelWire = m.CancelReason, m.CancelAt, m.CancelSentAt, m.CancelWire
		info.Late, info.LateCount, info.LateKinds, info.Duplicates = m.Late, m.LateCount, m.LateKinds, m.Duplicates
		info.Round = m.Round
	}
	return info
}

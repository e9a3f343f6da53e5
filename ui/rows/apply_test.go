package rows

import (
	"testing"
	"time"
	"unsafe"

	"github.com/mcpoke/mcpoke/session"
)

var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// at is t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// fold passes events through a Feed, as the screen gets them: progress
// and late progress folded into runs.
func fold(t *testing.T, events ...session.Event) []any {
	t.Helper()
	ch := make(chan session.Event)
	f := NewFeed(ch, time.Hour)
	defer func() { f.Stop(); close(ch) }()
	for _, e := range events {
		f.add(e)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur.Items
}

// apply folds events and applies them to a new store, with the effects.
func apply(t *testing.T, events ...session.Event) (*Store, []Effect) {
	t.Helper()
	s := NewStore()
	var fx []Effect
	for _, item := range fold(t, events...) {
		fx = append(fx, s.Apply(item))
	}
	return s, fx
}

// The request every cancel sequence is about: #1 tools/call sleep.
var (
	ref1     = session.Ref{Seq: 1, ID: session.IntID(1)}
	started1 = session.RequestStarted{Info: session.RequestInfo{Seq: 1, ID: session.IntID(1), Method: "tools/call",
		Tool: "sleep", State: session.Pending, Started: t0}}
	cancelling1 = session.StateChanged{Ref: ref1, From: session.Pending, To: session.Cancelling, At: at(100), Reason: "cancelled by the person"}
	sent1       = session.CancelSent{Ref: ref1, At: at(102), Wire: session.CancelWire{Notified: true}}
	cancelled1  = session.StateChanged{Ref: ref1, From: session.Cancelling, To: session.Cancelled, At: at(600)}
)

// late1 is late traffic for #1, ms after t0 (the cancel went at 102).
func late1(kind session.LateKind, ms int) session.LateArrived {
	return session.LateArrived{Ref: ref1, Late: session.LateFrame{Kind: kind, At: at(ms), AfterCancel: at(ms).Sub(at(102))}}
}

// rowFacts is what a cancel sequence leaves on row #1 and in the counts.
type rowFacts struct {
	state                          session.State
	reason                         string
	decided, sent                  time.Time
	responses, progress, statuses  int
	firstDelay                     time.Duration
	lastLate                       time.Time
	pending, cancelling, cancelled int
	completed                      int
	settled                        int // effects that ask for the session's record
}

func factsOf(s *Store, fx []Effect) rowFacts {
	r := s.Get(1)
	l := r.LateOrNone()
	f := rowFacts{state: r.State, reason: r.Reason, decided: r.CancelOrNone().At, sent: r.SentAt(),
		responses: l.Responses, progress: l.Progress, statuses: l.Statuses, firstDelay: l.FirstDelay, lastLate: l.Last.At,
		pending: s.Counts[session.Pending], cancelling: s.Counts[session.Cancelling],
		cancelled: s.Counts[session.Cancelled], completed: s.Counts[session.Completed]}
	for _, e := range fx {
		if e.Settled {
			f.settled++
		}
	}
	return f
}

// TestApplyCancelSequences folds the life of a cancelled request, with
// what comes after the cancel, into its row.
func TestApplyCancelSequences(t *testing.T) {
	const reason = "cancelled by the person"
	tests := []struct {
		name   string
		events []session.Event
		want   rowFacts
	}{{
		name:   "pending",
		events: []session.Event{started1},
		want:   rowFacts{state: session.Pending, pending: 1},
	}, {
		name:   "cancelling: decided and sent, not settled",
		events: []session.Event{started1, cancelling1, sent1},
		want:   rowFacts{state: session.Cancelling, reason: reason, decided: at(100), sent: at(102), cancelling: 1},
	}, {
		name:   "cancel then cancelled",
		events: []session.Event{started1, cancelling1, sent1, cancelled1},
		want:   rowFacts{state: session.Cancelled, reason: reason, decided: at(100), sent: at(102), cancelled: 1, settled: 1},
	}, {
		name:   "a late result after the cancel is a late response, the row stays cancelled",
		events: []session.Event{started1, cancelling1, sent1, cancelled1, late1(session.LateResponse, 900)},
		want: rowFacts{state: session.Cancelled, reason: reason, decided: at(100), sent: at(102), cancelled: 1,
			responses: 1, firstDelay: 798 * time.Millisecond, lastLate: at(900), settled: 2},
	}, {
		name:   "a late error after the cancel is a late response too, not progress",
		events: []session.Event{started1, cancelling1, sent1, cancelled1, late1(session.LateError, 700)},
		want: rowFacts{state: session.Cancelled, reason: reason, decided: at(100), sent: at(102), cancelled: 1,
			responses: 1, firstDelay: 598 * time.Millisecond, lastLate: at(700), settled: 2},
	}, {
		name: "progress after the cancel is counted, every frame, as late progress",
		events: []session.Event{started1, cancelling1, sent1, late1(session.LateProgress, 200), late1(session.LateProgress, 300),
			cancelled1, late1(session.LateProgress, 800)},
		want: rowFacts{state: session.Cancelled, reason: reason, decided: at(100), sent: at(102), cancelled: 1,
			progress: 3, lastLate: at(800), settled: 1},
	}, {
		name: "the first late response sets the delay; later ones only count",
		events: []session.Event{started1, cancelling1, sent1, cancelled1, late1(session.LateError, 700),
			late1(session.LateResponse, 1500), late1(session.LateProgress, 1600)},
		want: rowFacts{state: session.Cancelled, reason: reason, decided: at(100), sent: at(102), cancelled: 1,
			responses: 2, progress: 1, firstDelay: 598 * time.Millisecond, lastLate: at(1600), settled: 3},
	}, {
		name:   "a task's late statuses are neither responses nor progress",
		events: []session.Event{started1, cancelling1, sent1, late1(session.LateStatus, 300)},
		want: rowFacts{state: session.Cancelling, reason: reason, decided: at(100), sent: at(102), cancelling: 1,
			statuses: 1, lastLate: at(300), settled: 1},
	}, {
		name: "a timeout is decided like a cancel, with its own reason",
		events: []session.Event{started1,
			session.StateChanged{Ref: ref1, From: session.Pending, To: session.TimedOut, At: at(5000), Reason: "timed out after 5s"}},
		want: rowFacts{state: session.TimedOut, reason: "timed out after 5s", decided: at(5000), settled: 1},
	}, {
		name:   "completed: no cancel, nothing late",
		events: []session.Event{started1, session.StateChanged{Ref: ref1, From: session.Pending, To: session.Completed, At: at(50)}},
		want:   rowFacts{state: session.Completed, completed: 1, settled: 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, fx := apply(t, tt.events...)
			if got := factsOf(s, fx); got != tt.want {
				t.Errorf("row #1:\n got %+v\nwant %+v", got, tt.want)
			}
			if s.Len() != 1 {
				t.Errorf("%d rows, want 1", s.Len())
			}
		})
	}
}

// Late traffic for a request the store does not have changes nothing
// and asks for nothing.
func TestApplyLateForAnUnknownRowIsNoEffect(t *testing.T) {
	s := NewStore()
	e := s.Apply(late1(session.LateResponse, 900))
	if e.Row != nil || e.Settled || s.Len() != 0 {
		t.Errorf("effect %+v, %d rows", e, s.Len())
	}
}

// TestApplyStrays: traffic that matched no request gets rows of its
// own, stray progress one per token.
func TestApplyStrays(t *testing.T) {
	stray := func(kind session.LateKind, id int64, token string, ms int) session.StrayArrived {
		return session.StrayArrived{At: at(ms), Kind: kind, ID: session.IntID(id), Token: token, Data: []byte(token)}
	}
	tests := []struct {
		name    string
		events  []session.Event
		methods []string // of the rows, in order
		counts  []int    // of each row
	}{
		{"a response for an unknown id", []session.Event{stray(session.LateResponse, 99, "", 1)},
			[]string{"response"}, []int{1}},
		{"an error for an unknown id", []session.Event{stray(session.LateError, 98, "", 1)},
			[]string{"error response"}, []int{1}},
		{"stray responses never share a row", []session.Event{stray(session.LateResponse, 7, "", 1), stray(session.LateResponse, 7, "", 2)},
			[]string{"response", "response"}, []int{1, 1}},
		{"stray progress shares a row per token", []session.Event{
			stray(session.LateProgress, 5, "5", 1), stray(session.LateProgress, 6, `"six"`, 2), stray(session.LateProgress, 5, "5", 3)},
			[]string{"notifications/progress", "notifications/progress"}, []int{2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := apply(t, tt.events...)
			if s.Len() != len(tt.methods) {
				t.Fatalf("%d rows, want %d", s.Len(), len(tt.methods))
			}
			for i, r := range s.Rows {
				if !r.IsStray() || r.Method != tt.methods[i] || r.Stray.Count != tt.counts[i] || r.State != session.Completed {
					t.Errorf("row %d: stray %v %q ×%d %v; want a stray %q ×%d", i, r.IsStray(), r.Method,
						r.StrayOrNone().Count, r.State, tt.methods[i], tt.counts[i])
				}
				if r.Seq != 0 || s.Get(r.Seq) != nil {
					t.Errorf("row %d: a stray row is indexed by Seq %d", i, r.Seq)
				}
			}
		})
	}
	// The newest stray progress of a token is the one its row shows.
	s, _ := apply(t, stray(session.LateProgress, 5, "5", 1), stray(session.LateProgress, 5, "5", 9))
	if r := s.Rows[0]; !r.Ended.Equal(at(9)) {
		t.Errorf("stray progress row ended %v, want its newest arrival %v", r.Ended, at(9))
	}
}

// TestApplyTasks: a task row is linked to the call that created it, its
// polls are counted rather than shown, and what the server says after
// the cancel is kept.
func TestApplyTasks(t *testing.T) {
	creator := session.RequestStarted{Info: session.RequestInfo{Seq: 1, ID: session.IntID(1), Method: "tools/call", Tool: "research", Started: t0}}
	taskRef := session.Ref{Seq: 2, ID: session.IntID(1)}
	task := session.RequestStarted{Info: session.RequestInfo{Seq: 2, ID: session.IntID(1), Method: "tools/call", TaskID: "task-1",
		State: session.Pending, Started: at(10), Task: &session.TaskInfo{Parent: ref1,
			State: session.TaskState{ID: "task-1", Status: session.TaskWorking}}}}
	poll := func(seq uint64) session.RequestStarted {
		return session.RequestStarted{Info: session.RequestInfo{Seq: seq, ID: session.IntID(int64(seq)), Method: "tasks/get",
			Task: &session.TaskInfo{Parent: taskRef}}}
	}
	result := session.RequestStarted{Info: session.RequestInfo{Seq: 9, ID: session.IntID(9), Method: "tasks/result",
		Task: &session.TaskInfo{Parent: taskRef}}}
	update := func(status string, late bool) session.TaskUpdated {
		return session.TaskUpdated{Ref: taskRef, Task: session.TaskState{ID: "task-1", Status: status},
			Update: session.TaskUpdate{Status: status, Late: late}}
	}
	s, fx := apply(t, creator, task, poll(3), poll(4), result, update(session.TaskInputRequired, false),
		session.TaskCancelAnswered{Ref: taskRef, Answer: session.TaskCancelAnswer{Acknowledged: true}},
		update(session.TaskCancelled, true), update(session.TaskWorking, true))

	if s.Len() != 3 {
		t.Fatalf("%d rows, want the creator, the task and tasks/result: polls get none", s.Len())
	}
	c, tr, res := s.Get(1), s.Get(2), s.Get(9)
	if c.IsTask() || c.TaskOrNone().Created != 2 {
		t.Errorf("creator: task %v, created %d; want no task, created 2", c.IsTask(), c.TaskOrNone().Created)
	}
	if !tr.IsTask() || tr.Task.ID != "task-1" || tr.Task.Parent != ref1 || tr.Task.Polls != 2 {
		t.Errorf("task row: %+v; want task-1 of #1 polled twice", tr.Task)
	}
	if res.IsTask() || res.TaskOrNone().Parent != taskRef {
		t.Errorf("tasks/result row: task %v, parent %+v; want no task, for the task row", res.IsTask(), res.TaskOrNone().Parent)
	}
	// The terminal status is kept: a status after it is not taken.
	if got := tr.TaskStatus(); got != session.TaskCancelled {
		t.Errorf("task status %q, want %q (nothing after a terminal one)", got, session.TaskCancelled)
	}
	if n := len(tr.Task.Updates); n != 3 {
		t.Errorf("%d updates kept, want 3", n)
	}
	if tr.Task.Cancel == nil || !tr.Task.Cancel.Acknowledged || tr.CancelRefused() {
		t.Errorf("tasks/cancel answer %+v, want acknowledged", tr.Task.Cancel)
	}
	if odd := tr.LateOrNone().OddStatuses; odd != 1 {
		t.Errorf("%d late statuses other than cancelled, want 1 (working)", odd)
	}
	if fx[1].Task != taskRef {
		t.Errorf("starting the task asks to follow %+v, want %+v", fx[1].Task, taskRef)
	}
	for i, e := range fx {
		if i != 1 && e.Task.Seq != 0 {
			t.Errorf("item %d asks to follow task %+v", i, e.Task)
		}
	}
	// A task that is already over is not followed.
	done := task
	done.Info.State = session.Completed
	if e := NewStore().Apply(done); e.Task.Seq != 0 {
		t.Errorf("a finished task asks to be followed: %+v", e.Task)
	}
}

// TestApplyRounds: a retry of a multi round-trip request names the
// request of its first round; a first request has no such link.
func TestApplyRounds(t *testing.T) {
	retry := session.RequestStarted{Info: session.RequestInfo{Seq: 2, ID: session.IntID(2), Method: "tools/call", Tool: "sleep",
		Round: session.Round{N: 2, First: ref1}}}
	s, _ := apply(t, started1, retry)
	if r := s.Get(1); r.Retry != nil {
		t.Errorf("the first round links to %+v", r.Retry)
	}
	if r := s.Get(2); r.Retry == nil || r.Retry.N != 2 || r.Retry.First != ref1 {
		t.Errorf("the retry links to %+v, want round 2 of #1", r.Retry)
	}
}

// A plain row carries none of what few rows need, and stays small.
func TestPlainRowStaysSmall(t *testing.T) {
	s, _ := apply(t, started1, session.StateChanged{Ref: ref1, From: session.Pending, To: session.Completed, At: at(50)})
	r := s.Get(1)
	if r.Progress != nil || r.Cancel != nil || r.Late != nil || r.Stray != nil || r.Task != nil || r.Listen != nil ||
		r.Ask != nil || r.Retry != nil || r.Rounds != nil {
		t.Errorf("a plain completed row has %+v", r)
	}
	if size := unsafe.Sizeof(Row{}); size > maxRowSize {
		t.Errorf("a Row is %d bytes, more than %d: put what few rows use behind a pointer", size, maxRowSize)
	}
}

// maxRowSize bounds a Row: it was 736 bytes when every row carried
// every field.
const maxRowSize = 320

// A row whose server keeps sending progress after the cancel says so
// while the frames keep coming, and stops saying it once they stop.
func TestStillSending(t *testing.T) {
	s, _ := apply(t, started1, cancelling1, sent1, cancelled1, late1(session.LateResponse, 700))
	r := s.Get(1)
	if r.StillSending(at(701)) {
		t.Error("a late response alone says the server is still sending")
	}
	s.Apply(late1(session.LateProgress, 900))
	for _, tt := range []struct {
		now  time.Time
		want bool
	}{{at(900), true}, {at(900).Add(StillSendingFor - time.Millisecond), true}, {at(900).Add(StillSendingFor), false}} {
		if got := r.StillSending(tt.now); got != tt.want {
			t.Errorf("still sending %v after the last frame: %v, want %v", tt.now.Sub(at(900)), got, tt.want)
		}
	}
}

package cli

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// Bounds on what a report keeps; the counts stay exact past them.
const (
	// maxStderrKept bounds the server stderr lines a report carries.
	maxStderrKept = 1000
	// progressEnds is how many of the first and of the last progress
	// notifications a text report keeps: it shows only counts and the last.
	progressEnds = progressShownEnds
	// maxStrayKept bounds the stray traffic a report lists.
	maxStrayKept = 1000
)

// recorder keeps what the session's event stream says about a call: its
// progress notifications (all of them for --json, else the first and last
// few), late and stray traffic, and the server's stderr, with exact counts.
//
// The call is the first request of its method we sent (tools/call for
// call, resources/read for read...): its RequestStarted comes before
// any of its events, even when a fast server answers before Call returns.
type recorder struct {
	seq atomic.Uint64 // the call's Seq, once known, for lateAnswer

	method string // the request's method: the first one sent is the one reported

	keepAll bool // keep every progress notification (--json)

	mu            sync.Mutex
	callSeq       uint64
	taskSeq       uint64 // the task row the call created, if any
	callStart     time.Time
	progress      []reportProgress // all, or the first progressEnds; as --json prints them
	lastProgress  []reportProgress // the last progressEnds, when not all are kept
	lastMessage   string           // shared by progress with the same message
	progressCount int
	late          []session.LateArrived
	stray         []session.StrayArrived
	strayCount    int
	stderr        []string
	stderrCount   int
	lastLine      time.Time       // when the last stderr line came
	logs          []loggedMessage // the first maxLogKept notifications/message
	logCount      int
	conn          connectionLog
	asked         serverRequests

	lateAnswer     chan struct{} // closed at a late response or error for seq
	lateAnswerOnce sync.Once
	done           chan struct{} // closed when the stream ended
}

// newRecorder reads sub until it ends; Subscribe before the call so that
// nothing is missed.
func newRecorder(sub *session.Subscription, keepAll bool, method string) *recorder {
	r := &recorder{method: method, keepAll: keepAll, lateAnswer: make(chan struct{}), done: make(chan struct{}), conn: newConnectionLog()}
	go func() {
		defer close(r.done)
		for e := range sub.C {
			r.apply(e)
		}
	}()
	return r
}

func (r *recorder) apply(e session.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked.apply(e)
	if r.conn.apply(e) {
		return
	}
	switch e := e.(type) {
	case session.RequestStarted:
		if r.callSeq == 0 && !e.Info.Incoming && e.Info.Method == r.method {
			r.callSeq, r.callStart = e.Info.Seq, e.Info.Started
		}
		if e.Info.TaskID != "" && e.Info.TaskParent().Seq == r.callSeq {
			r.taskSeq = e.Info.Seq
		}
	case session.ProgressUpdated:
		// A task's progress goes on with the call's token.
		if e.Ref.Seq == r.callSeq || (e.Ref.Seq == r.taskSeq && r.taskSeq != 0) {
			p := e.Progress
			if p.Message == r.lastMessage {
				p.Message = r.lastMessage // one string for a million "step"s
			}
			r.lastMessage = p.Message
			rp := reportProgress{Total: p.Total, Message: p.Message, AtMs: ms(p.At.Sub(r.callStart)), Flag: p.Flaw}
			if p.Flaw != session.ViolationProgressMissing && p.Flaw != session.ViolationProgressNotNumber {
				v := p.Progress
				rp.Progress = &v // null in --json when there was no number, never 0
			}
			r.addProgress(rp)
		}
	case session.LateArrived:
		r.late = append(r.late, e)
		// A late event needs a cancel first, which needs the Seq.
		// A late status is not an answer: more may follow.
		if k := e.Late.Kind; e.Ref.Seq == r.seq.Load() && (k == session.LateResponse || k == session.LateError) {
			r.lateAnswerOnce.Do(func() { close(r.lateAnswer) })
		}
	case session.StrayArrived:
		r.strayCount++
		if len(r.stray) < maxStrayKept {
			r.stray = append(r.stray, e)
		}
	case session.NotificationArrived:
		if e.Method == mcp.LogMessage {
			r.recordLog(e)
		}
	case session.StderrLine:
		r.stderrCount++
		r.stderr = append(r.stderr, e.Line)
		if len(r.stderr) >= 2*maxStderrKept {
			r.stderr = append(r.stderr[:0], r.stderr[len(r.stderr)-maxStderrKept:]...)
		}
		r.lastLine = time.Now()
	}
}

// addProgress keeps p: always with keepAll, else only among the first
// and the last progressEnds. Callers hold r.mu.
func (r *recorder) addProgress(p reportProgress) {
	r.progressCount++
	if r.keepAll || len(r.progress) < progressEnds {
		r.progress = append(r.progress, p)
		return
	}
	if len(r.lastProgress) == progressEnds {
		copy(r.lastProgress, r.lastProgress[1:])
		r.lastProgress = r.lastProgress[:progressEnds-1]
	}
	r.lastProgress = append(r.lastProgress, p)
}

// keptStderr is the last maxStderrKept lines. Callers hold r.mu.
func (r *recorder) keptStderr() []string {
	return r.stderr[max(0, len(r.stderr)-maxStderrKept):]
}

// stderrQuietFor reports whether no stderr line came in the last d.
func (r *recorder) stderrQuietFor(d time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Since(r.lastLine) >= d
}

package cli

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// maxStderrKept bounds the server stderr lines a report carries.
const maxStderrKept = 1000

// recorder keeps what the session's event stream says about a call:
// every progress notification (the request table keeps only the first
// thousand), late and stray traffic, and the server's stderr.
//
// Events are kept with their request's Seq and sorted out by the report:
// a fast server's events, even the end of the session, can come before
// Call has returned the Seq.
type recorder struct {
	seq atomic.Uint64 // the call's Seq, once known, for lateAnswer

	mu       sync.Mutex
	progress []session.ProgressUpdated
	late     []session.LateArrived
	stray    []session.StrayArrived
	stderr   []string
	lastLine time.Time // when the last stderr line came
	conn     connectionLog

	lateAnswer     chan struct{} // closed at a late response or error for seq
	lateAnswerOnce sync.Once
	done           chan struct{} // closed when the stream ended
}

// newRecorder reads sub until it ends; Subscribe before the call so that
// nothing is missed.
func newRecorder(sub *session.Subscription) *recorder {
	r := &recorder{lateAnswer: make(chan struct{}), done: make(chan struct{}), conn: newConnectionLog()}
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
	if r.conn.apply(e) {
		return
	}
	switch e := e.(type) {
	case session.ProgressUpdated:
		r.progress = append(r.progress, e)
	case session.LateArrived:
		r.late = append(r.late, e)
		// A late event needs a cancel first, which needs the Seq.
		if e.Ref.Seq == r.seq.Load() && e.Late.Kind != session.LateProgress {
			r.lateAnswerOnce.Do(func() { close(r.lateAnswer) })
		}
	case session.StrayArrived:
		r.stray = append(r.stray, e)
	case session.StderrLine:
		r.stderr = append(r.stderr, e.Line)
		if len(r.stderr) > maxStderrKept {
			r.stderr = r.stderr[len(r.stderr)-maxStderrKept:]
		}
		r.lastLine = time.Now()
	}
}

// stderrQuietFor reports whether no stderr line came in the last d.
func (r *recorder) stderrQuietFor(d time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Since(r.lastLine) >= d
}

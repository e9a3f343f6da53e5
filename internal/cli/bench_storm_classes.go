package cli

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// stormTally is what the storm counts, class by class. Its samples are
// durations only (8 bytes a call): the calls themselves are not kept.
type stormTally struct {
	mu sync.Mutex
	// completed: round trips of the calls answered with a result.
	completed []time.Duration
	// answeredFirst: calls picked for a cancel that were answered
	// before it (counted in completed too).
	answeredFirst int
	// errors: round trips of the calls answered with an error, and the
	// count by code ("isError" for a tool's error result, "failed" for a
	// call that failed without an answer, such as the server exiting).
	errors       []time.Duration
	errorsByCode map[string]int
	timedOut     []time.Duration
	// cancelled: time from the request being written to its cancel, of
	// every call cancelled, by what followed.
	clean         []time.Duration
	notObservable []time.Duration
	// answeredAfter: how long after the cancel the answer came;
	// progressAfter: how long after it the last progress came.
	answeredAfter []time.Duration
	// answeredAt: from the request to that answer, in the same order.
	answeredAt    []time.Duration
	lateResults   int
	lateErrors    int
	progressAfter []time.Duration
	lateProgress  int
	// quiet: cancel-to-quiet of every cancel whose aftermath is
	// observable, 0 for those followed by nothing.
	quiet []time.Duration
	// write: from the decision to cancel to the cancel on the wire.
	write []time.Duration
}

// callDone files a call that was not cancelled.
func (t *stormTally) callDone(d time.Duration, err error, answeredFirst bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if answeredFirst {
		t.answeredFirst++
	}
	if err == nil {
		t.completed = append(t.completed, d)
		return
	}
	if errors.Is(err, session.ErrTimedOut) {
		t.timedOut = append(t.timedOut, d)
		return
	}
	t.errors = append(t.errors, d)
	if t.errorsByCode == nil {
		t.errorsByCode = map[string]int{}
	}
	t.errorsByCode[errorCode(err)]++
}

// errorCode names an error's class for errors-by-code.
func errorCode(err error) string {
	var rpc *session.RPCError
	switch {
	case errors.As(err, &rpc):
		return strconv.FormatInt(rpc.Code, 10)
	case errors.Is(err, errIsError):
		return "isError"
	}
	return "failed"
}

// cancelled files a cancelled call once its watch is over.
func (t *stormTally) cancelled(c *stormCancel) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write = append(t.write, c.write)
	switch {
	case c.byStreamClose:
		t.notObservable = append(t.notObservable, c.ran)
		return
	case c.late[session.LateResponse]+c.late[session.LateError] > 0:
		t.answeredAfter = append(t.answeredAfter, c.firstAnswer)
		t.answeredAt = append(t.answeredAt, c.ran+c.firstAnswer)
		t.lateResults += c.late[session.LateResponse]
		t.lateErrors += c.late[session.LateError]
	case c.late[session.LateProgress] > 0:
		t.progressAfter = append(t.progressAfter, c.lastLate)
	default:
		t.clean = append(t.clean, c.ran)
	}
	t.lateProgress += c.late[session.LateProgress]
	t.quiet = append(t.quiet, c.lastLate)
}

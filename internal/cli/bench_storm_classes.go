package cli

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// stormTally is what the storm counts, class by class. Its samples go
// into sketches of fixed size: the calls themselves are not kept, and
// memory stays flat however many calls the storm makes.
type stormTally struct {
	mu sync.Mutex
	// completed: round trips of the calls answered with a result.
	completed latencySketch
	// answeredFirst: calls picked for a cancel that were answered
	// before it (counted in completed too).
	answeredFirst int
	// errors: round trips of the calls answered with an error, and the
	// count by code ("isError" for a tool's error result, "failed" for a
	// call that failed without an answer, such as the server exiting).
	errors       latencySketch
	errorsByCode map[string]int
	timedOut     latencySketch
	// cancelled: time from the request being written to its cancel, of
	// every call cancelled, by what followed.
	clean         latencySketch
	notObservable latencySketch
	// answeredAfter: how long after the cancel the answer came;
	// progressAfter: how long after it the last progress came.
	answeredAfter latencySketch
	// crossFloor is the fastest uncancelled round trip (set before the
	// storm); crossable holds the answeredAfter times of the answers that
	// came no sooner than that after their request, the ones that may
	// have crossed their cancel.
	crossFloor    time.Duration
	crossable     latencySketch
	lateResults   int
	lateErrors    int
	progressAfter latencySketch
	lateProgress  int
	// quiet: cancel-to-quiet of every cancel whose aftermath is
	// observable, 0 for those followed by nothing.
	quiet latencySketch
	// noisy: the quiet times that are not 0, for the histogram.
	noisy latencySketch
	// write: from the decision to cancel to the cancel on the wire.
	write latencySketch
}

// cancelledCount is how many calls were cancelled, whatever followed.
func (t *stormTally) cancelledCount() int {
	return t.clean.len() + t.notObservable.len() + t.answeredAfter.len() + t.progressAfter.len()
}

// callDone files a call that was not cancelled.
func (t *stormTally) callDone(d time.Duration, err error, answeredFirst bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if answeredFirst {
		t.answeredFirst++
	}
	if err == nil {
		t.completed.add(d)
		return
	}
	if errors.Is(err, session.ErrTimedOut) {
		t.timedOut.add(d)
		return
	}
	t.errors.add(d)
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
	t.write.add(c.write)
	switch {
	case c.byStreamClose:
		t.notObservable.add(c.ran)
		return
	case c.late[session.LateResponse]+c.late[session.LateError] > 0:
		t.answeredAfter.add(c.firstAnswer)
		if c.ran+c.firstAnswer >= t.crossFloor {
			t.crossable.add(c.firstAnswer)
		}
		t.lateResults += c.late[session.LateResponse]
		t.lateErrors += c.late[session.LateError]
	case c.late[session.LateProgress] > 0:
		t.progressAfter.add(c.lastLate)
	default:
		t.clean.add(c.ran)
	}
	t.lateProgress += c.late[session.LateProgress]
	t.quiet.add(c.lastLate)
	if c.lastLate != 0 {
		t.noisy.add(c.lastLate)
	}
}

package check

import (
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// barrierEvery is how often check 6 pings during its load.
const barrierEvery = 50 * time.Millisecond

// barriers are the pings check 6 sent during its load: when each was
// written and when its answer came.
type barriers struct {
	sent, answered []time.Time
	rtts           []time.Duration
	// ordered: the transport keeps one order for everything the server
	// writes (stdio), so a ping's answer is a barrier.
	ordered bool
}

func (r *runner) barriersOf(pings []*session.Call) barriers {
	b := barriers{ordered: r.conn.Transport() != "http"}
	for _, c := range pings {
		info, ok := r.s.Request(c.Ref()).Info()
		if !ok || info.State != session.Completed {
			continue
		}
		b.sent = append(b.sent, info.Started)
		b.answered = append(b.answered, info.Ended)
		b.rtts = append(b.rtts, info.Ended.Sub(info.Started))
	}
	return b
}

// after keeps the late frames of a cancelled call that surely came after
// the server had read its cancel: over stdio, those after the answer to
// the first ping sent after the cancel; without such a ping, or over
// HTTP, those past the in-flight window w.
func (b barriers) after(info session.RequestInfo, w window, frames []session.LateFrame) []session.LateFrame {
	var out []session.LateFrame
	barrier, ok := b.barrierFor(info.CancelSentAt)
	for _, f := range frames {
		if ok && f.At.After(barrier) || !ok && f.AfterCancel > w.d {
			out = append(out, f)
		}
	}
	return out
}

// progressAfter is after for progress, less the first frame past the
// barrier: a server reads a cancel before its handler notices it (the
// demo's and the SDKs' handlers run apart from their readers), so one
// progress may still go out in that race; work that goes on sends more.
func (b barriers) progressAfter(info session.RequestInfo, w window, progress []session.LateFrame) []session.LateFrame {
	out := b.after(info, w, progress)
	if _, ok := b.barrierFor(info.CancelSentAt); ok && len(out) > 0 {
		return out[1:]
	}
	return out
}

// answersAfter is after for answers, which also counts one that came
// before the barrier but past the fastest round trip (the reaction to a
// cancel can come before a ping's answer: go-sdk answers a cancelled call
// at once), unless it came when a whole call ends (natural: the call was
// finishing as the cancel went out). length is a whole call's length.
func (b barriers) answersAfter(info session.RequestInfo, w, fast window, length time.Duration, answers []session.LateFrame) []session.LateFrame {
	out := b.after(info, w, answers)
	if len(out) > 0 {
		return out
	}
	for _, a := range answers {
		if a.AfterCancel > fast.d && a.At.Sub(info.Started) < length*9/10 {
			out = append(out, a)
		}
	}
	return out
}

// barrierFor is when the answer came to the first ping written after t.
func (b barriers) barrierFor(t time.Time) (time.Time, bool) {
	if !b.ordered {
		return time.Time{}, false
	}
	for i, s := range b.sent {
		if !s.Before(t) {
			return b.answered[i], true
		}
	}
	return time.Time{}, false
}

// why says how frames were told in flight from after.
func (b barriers) why(w window) string {
	if !b.ordered || len(b.sent) == 0 {
		return w.why
	}
	return fmt.Sprintf("a frame counts as after its cancel when it came after the answer to a ping sent after the cancel (%d pings, every %s, through the load; stdio keeps the server's order, so it was written after the server had read the cancel); else past the %s; an answer also when it came past the fastest of those round trips, unless about when a whole call ends; the first progress past the barrier is left to the race between the server's reader and its handler",
		len(b.sent), barrierEvery, w.why)
}

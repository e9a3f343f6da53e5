package check

import (
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// watcher keeps what the session's events say about the connection as a
// whole: responses for no request (such as an answer to a
// notification), lines that are not JSON-RPC, and requests the server
// sent us. Per-request traffic (progress, late frames) is read from the
// request table instead.
type watcher struct {
	sub  *session.Subscription
	done chan struct{}

	mu     sync.Mutex
	strays []session.StrayArrived // responses and errors only
	noise  []session.NoiseArrived
	// duplicates are second responses to requests of ours that had one:
	// a reply to our answer that reuses the id of one of ours lands here.
	duplicates []session.DuplicateArrived
	incoming   int
	// sent holds the ids of the requests we sent, as JSON text: the
	// progress tokens mcpoke may see.
	sent map[string]bool
	// strayProgressN counts progress naming a token mcpoke never sent;
	// strayProgressFirst keeps the first few.
	strayProgressN     int
	strayProgressFirst []session.StrayArrived
	// idProgress are progress notifications the session took for no
	// request although they name the id of one of ours (its answer had
	// come, or it had no token): the latest, bounded like strays.
	idProgress []session.StrayArrived
	// notIncreasingN counts progress whose value was not above the one
	// before for its request; notIncreasingFirst keeps the first few.
	notIncreasingN     int
	notIncreasingFirst []session.Violation
	// unsentAnswers counts responses naming an id mcpoke never sent
	// (forged, or misrouted); unsentFirst keeps the first.
	unsentAnswers int
	unsentFirst   []byte
	// lastCancel is the last cancel mcpoke sent: when the connection dies
	// right after one, that is the likely cause.
	lastCancel *session.CancelSent
	// cancelling is the last request that went to Cancelling, which it
	// does before its cancel is written: a server that dies on reading
	// the cancel can end the session before the session tells CancelSent.
	cancelling *session.CancelSent
	// ended holds the requests whose final state the watcher has seen:
	// a barrier ping's end tells that every event before it was read.
	ended map[uint64]bool
}

// maxStrays bounds each list of connection-wide events the watcher keeps
// (it keeps between this many and twice as many, the latest): a flooding
// server cannot grow it.
const maxStrays = 1000

func newWatcher(s *session.Session) *watcher {
	w := &watcher{sub: s.Subscribe(), done: make(chan struct{}), ended: map[uint64]bool{}, sent: map[string]bool{}}
	go w.read()
	return w
}

func (w *watcher) read() {
	defer close(w.done)
	for e := range w.sub.C {
		w.mu.Lock()
		switch e := e.(type) {
		case session.StrayArrived:
			switch {
			case e.Kind != session.LateProgress:
				if len(w.strays) >= 2*maxStrays {
					// Keep the latest: since reads the recent ones.
					w.strays = append(w.strays[:0], w.strays[maxStrays:]...)
				}
				w.strays = append(w.strays, e)
				if !e.ID.IsZero() && !w.sent[e.ID.String()] {
					w.unsentAnswers++
					if w.unsentFirst == nil {
						w.unsentFirst = e.Data
					}
				}
			case !w.sent[e.Token]:
				w.strayProgressN++
				if len(w.strayProgressFirst) < maxFrames {
					w.strayProgressFirst = append(w.strayProgressFirst, e)
				}
			default:
				if len(w.idProgress) >= 2*maxStrays {
					w.idProgress = append(w.idProgress[:0], w.idProgress[maxStrays:]...)
				}
				w.idProgress = append(w.idProgress, e)
			}
		case session.NoiseArrived:
			if len(w.noise) >= 2*maxStrays {
				w.noise = append(w.noise[:0], w.noise[maxStrays:]...)
			}
			w.noise = append(w.noise, e)
		case session.CancelSent:
			w.lastCancel = &e
		case session.Violation:
			if e.Kind == session.ViolationProgressNotIncreasing {
				w.notIncreasingN++
				if len(w.notIncreasingFirst) < maxFrames {
					w.notIncreasingFirst = append(w.notIncreasingFirst, e)
				}
			}
		case session.DuplicateArrived:
			if len(w.duplicates) >= 2*maxStrays {
				w.duplicates = append(w.duplicates[:0], w.duplicates[maxStrays:]...)
			}
			w.duplicates = append(w.duplicates, e)
		case session.StateChanged:
			if e.To.Final() {
				w.ended[e.Ref.Seq] = true
			}
			if e.To == session.Cancelling {
				w.cancelling = &session.CancelSent{Ref: e.Ref, At: e.At}
			}
		case session.RequestStarted:
			if e.Info.Incoming {
				w.incoming++
			} else {
				w.sent[e.Info.ID.String()] = true
			}
		}
		w.mu.Unlock()
	}
}

func (w *watcher) close() {
	w.sub.Close()
	<-w.done
}

// since returns the stray responses and the noise that arrived at or
// after t.
func (w *watcher) since(t time.Time) ([]session.StrayArrived, []session.NoiseArrived) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return arrivedSince(w.strays, t, func(s session.StrayArrived) time.Time { return s.At }),
		arrivedSince(w.noise, t, func(n session.NoiseArrived) time.Time { return n.At })
}

// duplicatesSince returns the duplicate responses that arrived at or
// after t.
func (w *watcher) duplicatesSince(t time.Time) []session.DuplicateArrived {
	w.mu.Lock()
	defer w.mu.Unlock()
	return arrivedSince(w.duplicates, t, func(d session.DuplicateArrived) time.Time { return d.At })
}

// arrivedSince returns the events, in order, that arrived at or after t.
func arrivedSince[E any](events []E, t time.Time, at func(E) time.Time) []E {
	var out []E
	for _, e := range events {
		if !at(e).Before(t) {
			out = append(out, e)
		}
	}
	return out
}

// strayProgress is how many progress notifications named a token
// mcpoke never sent so far, and the first few.
func (w *watcher) strayProgress() (int, []session.StrayArrived) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.strayProgressN, w.strayProgressFirst
}

// progressNaming returns the progress notifications since t that named
// token, a request id of ours the session had no progress for.
func (w *watcher) progressNaming(token string, t time.Time) []session.StrayArrived {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []session.StrayArrived
	for _, e := range arrivedSince(w.idProgress, t, func(s session.StrayArrived) time.Time { return s.At }) {
		if e.Token == token {
			out = append(out, e)
		}
	}
	return out
}

// notIncreasing is how many progress notifications so far did not
// increase their request's progress, and the first few.
func (w *watcher) notIncreasing() (int, []session.Violation) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.notIncreasingN, w.notIncreasingFirst
}

// unsent is how many responses named an id mcpoke never sent, and the
// first of them.
func (w *watcher) unsent() (int, []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unsentAnswers, w.unsentFirst
}

// drainWait bounds the wait for the watcher to read the last events of
// a session that ended.
const drainWait = time.Second

// cancelBefore is the last cancel mcpoke sent, or began to send, if
// any. Called once the session ended: the watcher reads events behind
// the session, so it first reads them all (the subscription closes after
// the last), lest a cancel sent just before the end be missed.
func (w *watcher) cancelBefore() *session.CancelSent {
	t := time.NewTimer(drainWait)
	select {
	case <-w.done:
	case <-t.C:
	}
	t.Stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	if c := w.cancelling; c != nil && (w.lastCancel == nil || c.Ref.Seq != w.lastCancel.Ref.Seq && c.At.After(w.lastCancel.At)) {
		return c // its CancelSent never came: the session had ended
	}
	return w.lastCancel
}

// incomingRequests is how many requests the server sent us so far.
func (w *watcher) incomingRequests() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.incoming
}

// caughtUp waits until the watcher has read the end of request seq, and
// so every event before it, or until the deadline.
func (w *watcher) caughtUp(seq uint64, within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		seen := w.ended[seq]
		w.mu.Unlock()
		if seen {
			return
		}
		select {
		case <-w.done:
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

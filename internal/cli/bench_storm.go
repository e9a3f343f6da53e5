package cli

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// stormPlan is one run of the cancel storm: how many calls (or for how
// long), how many at once, which share to cancel and when.
type stormPlan struct {
	rate        float64
	at          cancelPoint
	calls       int           // 0 when forD bounds the run
	forD        time.Duration // 0 when calls bounds it
	concurrency int
	// watch is how long each cancelled call is watched for what the
	// server sends after the cancel.
	watch   time.Duration
	timeout time.Duration
}

// picked says whether call i (from 0) is one of the share to cancel: the
// picks are spread evenly, so that any stretch of the run has its share.
func (p *stormPlan) picked(i int64) bool {
	if p.rate <= 0 {
		return false
	}
	return math.Floor(float64(i+1)*p.rate) > math.Floor(float64(i)*p.rate)
}

// stormCancel is one cancelled call while it is watched: filled by the
// call's worker, then by the watcher from the session's events.
type stormCancel struct {
	seq uint64
	id  string
	// Set by the worker once the cancel was written; sent is zero before.
	sent          time.Time
	ran           time.Duration // from the request written to its cancel
	write         time.Duration // from the decision to the wire
	byStreamClose bool
	dropped       bool // answered before the cancel: not a cancel after all
	// Set by the watcher.
	late        [3]int        // by session.LateKind: response, error, progress
	firstAnswer time.Duration // after the cancel, of the first late answer
	lastLate    time.Duration // after the cancel, of the last late frame
}

// stormWatcher reads the session's events for the storm: late traffic of
// the cancelled calls (also once the table dropped their rows, when it
// arrives as stray) and the progress the mid-progress point waits for.
// A cancelled call is filed in its class once watched for plan.watch,
// and forgotten: memory stays flat however long the storm.
type stormWatcher struct {
	s     *session.Session
	sub   *session.Subscription
	tally *stormTally
	watch time.Duration

	mu      sync.Mutex
	bySeq   map[uint64]*stormCancel
	byID    map[string]*stormCancel
	queue   []*stormCancel // in the order of their cancels
	waiters map[uint64]chan struct{}
	done    chan struct{}
}

func newStormWatcher(s *session.Session, tally *stormTally, watch time.Duration) *stormWatcher {
	w := &stormWatcher{
		s: s, sub: s.SubscribeTo(stormEvent), tally: tally, watch: watch,
		bySeq: map[uint64]*stormCancel{}, byID: map[string]*stormCancel{},
		waiters: map[uint64]chan struct{}{}, done: make(chan struct{}),
	}
	go w.run()
	return w
}

// stormEvent keeps the events the watcher reads: the rest (a state
// change or two for every call) would wake it for nothing.
func stormEvent(e session.Event) bool {
	switch e.(type) {
	case session.LateArrived, session.StrayArrived, session.ProgressUpdated:
		return true
	}
	return false
}

func (w *stormWatcher) run() {
	defer close(w.done)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case e, ok := <-w.sub.C:
			if !ok {
				return
			}
			w.event(e)
		case now := <-tick.C:
			w.file(now)
		}
	}
}

func (w *stormWatcher) event(e session.Event) {
	switch e := e.(type) {
	case session.LateArrived:
		w.mu.Lock()
		if c := w.bySeq[e.Ref.Seq]; c != nil {
			c.add(e.Late.Kind, e.Late.AfterCancel)
		}
		w.mu.Unlock()
	case session.StrayArrived:
		// The table dropped the row (it keeps the newest finished
		// ones): the id still names the call.
		if e.ID.IsZero() {
			return
		}
		w.mu.Lock()
		if c := w.byID[e.ID.String()]; c != nil && !c.sent.IsZero() {
			c.add(e.Kind, max(e.At.Sub(c.sent), 0))
		}
		w.mu.Unlock()
	case session.ProgressUpdated:
		w.mu.Lock()
		if ch := w.waiters[e.Ref.Seq]; ch != nil && midProgress(e.Progress, 1) {
			delete(w.waiters, e.Ref.Seq)
			close(ch)
		}
		w.mu.Unlock()
	}
}

// add counts one late frame.
func (c *stormCancel) add(kind session.LateKind, after time.Duration) {
	if int(kind) >= len(c.late) {
		return
	}
	if kind != session.LateProgress && c.late[session.LateResponse]+c.late[session.LateError] == 0 {
		c.firstAnswer = after
	}
	c.late[kind]++
	c.lastLate = max(c.lastLate, after)
}

// midProgress says whether a progress notification (the count-th) shows
// the server halfway: progress ≥ total/2, or any progress without a total.
func midProgress(p session.Progress, count int) bool {
	if p.Flaw == session.ViolationProgressMissing || p.Flaw == session.ViolationProgressNotNumber {
		return false // no value to read
	}
	if p.Total == nil || *p.Total <= 0 {
		return count >= 1
	}
	return p.Progress >= *p.Total/2
}

// register starts watching a call about to be cancelled: before the
// cancel, so that nothing sent after it is missed.
func (w *stormWatcher) register(call *session.Call) *stormCancel {
	c := &stormCancel{seq: call.Seq(), id: call.ID().String()}
	w.mu.Lock()
	w.bySeq[c.seq] = c
	w.byID[c.id] = c
	w.queue = append(w.queue, c)
	w.mu.Unlock()
	return c
}

// sent records that c's cancel was written.
func (w *stormWatcher) sent(c *stormCancel, info session.RequestInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c.sent = info.CancelSentAt
	if c.sent.IsZero() {
		c.sent = time.Now()
	}
	c.ran = c.sent.Sub(info.Started)
	if !info.CancelAt.IsZero() {
		c.write = c.sent.Sub(info.CancelAt)
	}
	c.byStreamClose = info.CancelWire.ByStreamClose
}

// drop forgets a call whose answer beat its cancel.
func (w *stormWatcher) drop(c *stormCancel) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c.dropped = true
	w.forget(c)
}

// forget stops watching c. Callers hold w.mu.
func (w *stormWatcher) forget(c *stormCancel) {
	delete(w.bySeq, c.seq)
	delete(w.byID, c.id)
}

// waitMidProgress returns a channel closed once call's progress reaches
// mid-progress (or at once when it already has).
func (w *stormWatcher) waitMidProgress(call *session.Call) <-chan struct{} {
	ch := make(chan struct{})
	w.mu.Lock()
	defer w.mu.Unlock()
	// Progress that came before we asked is in the row already.
	if info, ok := w.s.Request(call.Ref()).Info(); ok && info.Progress != nil && midProgress(*info.Progress, info.ProgressCount) {
		close(ch)
		return ch
	}
	w.waiters[call.Seq()] = ch
	return ch
}

// unwait forgets a waiter whose call ended first.
func (w *stormWatcher) unwait(call *session.Call) {
	w.mu.Lock()
	delete(w.waiters, call.Seq())
	w.mu.Unlock()
}

// file puts the calls watched long enough (all of them with now zero)
// in their classes.
func (w *stormWatcher) file(now time.Time) {
	w.mu.Lock()
	var ready []*stormCancel
	i := 0
	for ; i < len(w.queue); i++ {
		c := w.queue[i]
		if c.dropped {
			continue
		}
		if c.sent.IsZero() && !now.IsZero() {
			break // its cancel is still being written
		}
		if !now.IsZero() && now.Sub(c.sent) < w.watch {
			break
		}
		w.forget(c)
		ready = append(ready, c)
	}
	w.queue = append(w.queue[:0], w.queue[i:]...)
	w.mu.Unlock()
	for _, c := range ready {
		w.tally.cancelled(c)
	}
}

// lastSent is when the newest cancel still watched was written; zero when
// none is.
func (w *stormWatcher) lastSent() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var last time.Time
	for _, c := range w.queue {
		if c.sent.After(last) {
			last = c.sent
		}
	}
	return last
}

// close stops reading events and files every call still watched.
func (w *stormWatcher) close() {
	w.sub.Close()
	<-w.done
	w.file(time.Time{})
}

// runStorm makes the plan's calls, concurrency at a time, cancelling its
// share, and returns the wall time of the calls (until the last ended or
// was cancelled). The cancelled calls are still watched when it returns:
// the caller waits out the watch, then closes w. Once ctx ends it starts
// no more calls; calls it cut short are not counted.
func runStorm(ctx context.Context, s *session.Session, req benchRequest, p stormPlan, tally *stormTally, w *stormWatcher) time.Duration {
	var started atomic.Int64
	start := time.Now()
	var stopAt time.Time
	if p.forD > 0 {
		stopAt = start.Add(p.forD)
	}
	var endMu sync.Mutex
	end := start
	ended := func(t time.Time) {
		endMu.Lock()
		end = later(end, t)
		endMu.Unlock()
	}
	opts := session.CallOptions{Timeout: p.timeout, ParamHeaders: req.headers}
	var wg sync.WaitGroup
	workers := p.concurrency
	if p.calls > 0 {
		workers = min(workers, p.calls)
	}
	for range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
			for ctx.Err() == nil {
				i := started.Add(1) - 1
				if (p.calls > 0 && i >= int64(p.calls)) || (!stopAt.IsZero() && !time.Now().Before(stopAt)) {
					return
				}
				t0 := time.Now()
				if !p.picked(i) {
					res, err := s.Do(ctx, "tools/call", req.params, opts)
					d := time.Since(t0)
					if err = resultError(res, err); err != nil && ctx.Err() != nil {
						return // cut short by the interrupt: not counted
					}
					tally.callDone(d, err, false)
					ended(t0.Add(d))
					continue
				}
				if !stormCancelOne(ctx, s, req, opts, p.at, rng, tally, w, ended) {
					return
				}
			}
		})
	}
	wg.Wait()
	return end.Sub(start)
}

// stormCancelOne makes one call and cancels it at the plan's point,
// unless its answer comes first. It reports false when ctx ended.
func stormCancelOne(ctx context.Context, s *session.Session, req benchRequest, opts session.CallOptions, at cancelPoint,
	rng *rand.Rand, tally *stormTally, w *stormWatcher, ended func(time.Time)) bool {
	t0 := time.Now()
	call, err := s.Call(ctx, "tools/call", req.params, opts)
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		tally.callDone(time.Since(t0), err, false)
		ended(time.Now())
		return true
	}
	// One of the two fires at the point: a nil channel never does.
	var point <-chan struct{}
	var timerC <-chan time.Time
	switch at.kind {
	case cancelBeforeFirstProgress:
		point = closedChan
	case cancelMidProgress:
		point = w.waitMidProgress(call)
		defer w.unwait(call)
	default:
		d := at.from
		if at.to > at.from {
			d += time.Duration(rng.Int64N(int64(at.to-at.from) + 1))
		}
		timer := time.NewTimer(d - time.Since(t0))
		defer timer.Stop()
		timerC = timer.C
	}
	answered := func() bool {
		res, _, err := call.Result()
		if err = resultError(res, err); err != nil && ctx.Err() != nil {
			return false
		}
		d := time.Since(t0)
		tally.callDone(d, err, true)
		ended(t0.Add(d))
		return true
	}
	select {
	case <-call.Done():
		return answered()
	case <-ctx.Done():
		return false // the session cancels it, for the interrupt
	case <-point:
	case <-timerC:
	}
	c := w.register(call)
	h := s.Request(call.Ref())
	if err := h.Cancel("mcpoke bench: cancel storm"); err != nil {
		// Its answer (or its timeout) came as the cancel was decided.
		w.drop(c)
		return answered()
	}
	info, _ := h.Info()
	w.sent(c, info)
	ended(info.CancelSentAt)
	return true
}

// closedChan is ready at once.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// runUncancelled is the storm's twin without cancels, through the same
// code: its round trips (errors and timeouts included) in a sketch, how many failed,
// and its wall time.
func runUncancelled(ctx context.Context, s *session.Session, req benchRequest, f *benchFlags) (*latencySketch, int, time.Duration) {
	p := f.stormPlan()
	p.rate = 0
	t := &stormTally{}
	wall := runStorm(ctx, s, req, p, t, nil)
	rounds := &latencySketch{}
	rounds.merge(&t.completed)
	rounds.merge(&t.errors)
	rounds.merge(&t.timedOut)
	return rounds, t.errors.len() + t.timedOut.len(), wall
}

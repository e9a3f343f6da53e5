package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// defaultCallLength is taken for the tool's call length when no call of
// it has been seen to end.
const defaultCallLength = 3 * time.Second

// stillWorking: an unanswered call with progress this recent is taken
// for slow rather than lost.
const stillWorking = time.Second

// underLoad is check 6: Load calls at once, half of them cancelled at a
// random moment of their expected length. Every uncancelled call must be
// answered and the connection must live; answers to cancelled ones are
// counted.
func (r *runner) underLoad(ctx context.Context, res *Result) {
	e := &res.Evidence
	length := r.duration
	if length <= 0 {
		length = defaultCallLength
	}
	rng := rand.New(rand.NewPCG(uint64(r.opts.Seed), 15))
	n := r.opts.Load
	calls := make([]*session.Call, 0, n)
	cancelled := make([]bool, n)
	var (
		mu       sync.Mutex
		refused  int // cancels that came after the answer
		timers   []*time.Timer
		sendErrs int
	)
	begin := time.Now()
	for i := range n {
		c, err := r.call(ctx)
		if err != nil {
			sendErrs++
			break
		}
		calls = append(calls, c)
		if rng.IntN(2) == 0 {
			continue
		}
		cancelled[i] = true
		at := time.Duration(rng.Int64N(int64(length) * 6 / 5))
		timers = append(timers, time.AfterFunc(at, func() {
			if r.s.Request(c.Ref()).Cancel(cancelReason) != nil {
				mu.Lock()
				refused++
				mu.Unlock()
			}
		}))
	}
	wait, stop := context.WithTimeout(ctx, length*6/5+r.opts.CallTimeout)
	defer stop()
	// Pings sent all through the load are barriers: over stdio the
	// server reads its input in order and writes its output in order, so
	// whatever came after the answer to a ping sent after a cancel was
	// written after the server had read that cancel. Their round trips
	// also give the window used where there is no such order (HTTP).
	pinging := make(chan struct{})
	var pings []*session.Call // written by the pinger until pinging closes
	go func() {
		defer close(pinging)
		until := begin.Add(length*6/5 + r.opts.Listen)
		for wait.Err() == nil && time.Now().Before(until) {
			if c, err := mcp.StartPing(wait, r.s, r.pingTimeout()); err == nil {
				pings = append(pings, c)
			}
			r.sleep(wait, barrierEvery)
		}
	}()
	defer func() { stop(); <-pinging }() // on early returns; closed twice is fine

	for i, c := range calls {
		if cancelled[i] {
			continue
		}
		select {
		case <-c.Done():
		case <-wait.Done():
		case <-r.s.Done():
		}
	}
	// The last cancels go out at 1.2 × length; then listen for answers.
	lastCancel := begin.Add(length * 6 / 5)
	if now := time.Now(); lastCancel.Before(now) {
		lastCancel = now
	}
	r.sleep(ctx, time.Until(lastCancel.Add(r.opts.Listen)))
	for _, t := range timers {
		t.Stop()
	}
	stop()
	<-pinging
	b := r.barriersOf(pings)
	w, fast := r.loadWindow(b.rtts), r.windowOf(b.rtts, "sent during the load")
	// A call still reporting progress at the end was slow, not lost.
	busySince := time.Now().Add(-stillWorking)
	var answered, errored, unanswered, working, cancels, unseen, lateAnswers, lateProgress int
	var failedAsCancelled int
	var firstFailedAsCancelled *session.RPCError
	var firstUnanswered session.ID
	var firstLateAnswer *session.LateFrame
	for i, c := range calls {
		info, _ := r.s.Request(c.Ref()).Info()
		if cancelled[i] && !info.CancelSentAt.IsZero() {
			cancels++
			if !info.CancelWire.LateObservable() {
				unseen++
			}
			a, p := lateOf(info)
			after := b.answersAfter(info, w, fast, length, a)
			lateAnswers += len(after)
			if len(after) > 0 && firstLateAnswer == nil {
				firstLateAnswer = &after[0]
			}
			lateProgress += len(b.progressAfter(info, w, p))
			continue
		}
		switch info.State {
		case session.Completed:
			answered++
		case session.Failed:
			if info.Error != nil {
				answered++
				errored++
				if saysCancelled(info.Error) {
					failedAsCancelled++
					if firstFailedAsCancelled == nil {
						firstFailedAsCancelled = info.Error
					}
				}
				continue
			}
			fallthrough
		default:
			if info.Progress != nil && info.Progress.At.After(busySince) {
				working++
				continue
			}
			if unanswered == 0 {
				firstUnanswered = info.ID
			}
			unanswered++
		}
	}
	mu.Lock()
	e.count("calls", len(calls))
	e.count("cancelled", cancels)
	e.count("cancelAfterAnswer", refused)
	mu.Unlock()
	e.count("uncancelledAnswered", answered)
	e.count("uncancelledErrors", errored)
	e.count("uncancelledUnanswered", unanswered)
	e.count("uncancelledStillWorking", working)
	e.count("answersToCancelled", lateAnswers)
	e.count("progressAfterCancel", lateProgress)
	e.time("callLength", length)
	e.time("inFlightWindow", w.d)
	e.fact("%d calls of %s at once; %d cancelled at random moments within %s (seed %d); %d more were to be cancelled but had been answered already",
		len(calls), r.tool.Name, cancels, human(length*6/5), r.opts.Seed, refused)
	e.fact("%d of %d uncancelled calls answered (%d with an error), %d unanswered, %d still reporting progress",
		answered, answered+unanswered+working, errored, unanswered, working)
	if unseen == cancels && cancels > 0 {
		e.fact("each cancel closed its call's stream: what the server did after it cannot be seen")
	} else {
		e.fact("%d cancelled %s answered anyway, %d progress %s after their cancels (%s)", lateAnswers, plural(lateAnswers, "call", "calls"),
			lateProgress, plural(lateProgress, "notification", "notifications"), b.why(w))
	}
	if sendErrs > 0 {
		e.fact("sending stopped after %d calls", len(calls))
	}
	if r.failDead(res, "under load") {
		return
	}
	rtt, err := r.ping(ctx)
	switch {
	case err != nil:
		res.Status = Fail
		e.fact("after the load: %s", r.pingFailed(err))
		r.failDeadAfterError(res, "after the load")
		return
	case unanswered > 0:
		res.Status = Fail
		e.fact("request %s and %d more uncancelled calls never got an answer", firstUnanswered, unanswered-1)
		return
	case failedAsCancelled > 0: // seen, however many are still working
		res.Status = Fail
		e.fact("%d uncancelled %s failed as cancelled (%v): the server took a cancel for another request", failedAsCancelled,
			plural(failedAsCancelled, "call was", "calls were"), firstFailedAsCancelled)
	case working > 0:
		// Slow is not wrong: whether each would be answered is untested.
		res.Status = Skip
		res.Reason = fmt.Sprintf("%d uncancelled calls were still reporting progress %s after the cancels: too slow to tell whether each is answered; try a smaller --load",
			working, r.opts.CallTimeout)
		e.fact("%s", res.Reason)
	default:
		res.Status = Pass
		if errored > 0 {
			// A tool's own error is the tool's business, not a cancel's.
			e.fact("%d uncancelled %s answered with an error that does not say cancelled", errored, plural(errored, "call was", "calls were"))
		}
	}
	e.time("pingAfter", rtt)
	e.fact("the connection lives: %s answered in %s", mcp.PingMethod(r.s), human(rtt))
	// What was counted against the spec moves the grade; the sentence is
	// the era's and transport's (a MUST in 2026-07-28).
	if lateAnswers > 0 {
		rule := r.afterCancelRule(ruleNoResponse)
		r.worse(res, rule, "%d cancelled %s answered anyway: %s", lateAnswers, plural(lateAnswers, "call was", "calls were"), rule.Sentence)
		e.frame(fmt.Sprintf("%s %s after its cancel", firstLateAnswer.Kind, human(firstLateAnswer.AfterCancel)), firstLateAnswer.Data)
	}
	if lateProgress > 0 {
		rule := r.afterCancelRule(ruleStopWork)
		r.worse(res, rule, "%d progress %s after their cancels: %s", lateProgress,
			plural(lateProgress, "notification came", "notifications came"), rule.Sentence)
	}
}

// saysCancelled reports whether an error response says its request was
// cancelled: the code the SDKs use for it (-32800), or the word as a word
// ("request cancelled", "Canceled"), not inside another ("cancel_policy",
// "cannot cancel order" is a tool's own business).
func saysCancelled(err *session.RPCError) bool {
	return err.Code == codeRequestCancelled || cancelledWord.MatchString(err.Message)
}

// cancelledWord is "cancelled" or "canceled", in any case, as a word.
var cancelledWord = regexp.MustCompile(`(?i)\bcancel+ed\b`)

// codeRequestCancelled is the error code SDKs answer a cancelled request
// with (LSP's RequestCancelled), where they answer one at all.
const codeRequestCancelled = -32800

// worse lowers res to what breaking rule is worth, when that is worse
// than its grade so far, and says why.
func (r *runner) worse(res *Result, rule Rule, format string, a ...any) {
	st := broken(rule)
	res.Evidence.fact(format, a...)
	if rank(st) > rank(res.Status) {
		if res.Status == Skip && res.Reason != "" && !slices.Contains(res.Evidence.Facts, res.Reason) {
			res.Evidence.fact("%s", res.Reason) // what could not be graded is still said
		}
		// A grade now rests on this rule: no longer a skip, nor "not applicable".
		res.Rule, res.Status, res.Reason, res.NotApplicable = rule, st, "", false
	}
}

// rank orders grades from best to worst.
func rank(s Status) int {
	switch s {
	case Warn:
		return 1
	case Fail:
		return 2
	}
	return 0
}

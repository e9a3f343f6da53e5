package check

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// cancelReason is the reason the checks' cancels give.
const cancelReason = "mcpoke check: cancellation test"

// cancelObservation is one call cancelled mid-work and watched for
// Options.Listen after the cancel: checks 1 and 2 grade it.
type cancelObservation struct {
	// notCancelled says why no cancel was sent (the call ended first).
	notCancelled string
	info         session.RequestInfo
	listened     time.Duration
	died         string
	// wire is what the HTTP transport said meanwhile (check 8).
	wire []wire.Record
}

// observeCancel cancels one call of the tool once it is underway and
// listens; the result is shared by checks 1 and 2.
func (r *runner) observeCancel(ctx context.Context) *cancelObservation {
	if r.cancelObs != nil {
		return r.cancelObs
	}
	o := &cancelObservation{}
	r.cancelObs = o
	r.wire.start()
	defer func() { o.wire = r.wire.stop() }()
	for attempt := 0; ; attempt++ {
		c, err := r.call(ctx)
		if err != nil {
			o.notCancelled = "tools/call could not be sent: " + err.Error()
			if r.closed() {
				o.notCancelled = "tools/call could not be sent: " + r.dead()
				r.deathTold = true
			}
			return o
		}
		if r.underway(ctx, c) && r.s.Request(c.Ref()).Cancel(cancelReason) == nil {
			info, _ := r.s.Request(c.Ref()).Info()
			r.sleep(ctx, time.Until(r.listenUntil(info)))
			o.listened = time.Since(info.LateFrom())
			o.died = r.dead()
			if o.died == "" {
				_, _ = r.ping(ctx)
			}
			o.info, _ = r.s.Request(c.Ref()).Info()
			return o
		}
		info, _ := r.s.Request(c.Ref()).Info()
		if attempt == 1 || ctx.Err() != nil {
			o.notCancelled = fmt.Sprintf("the call ended %s after %s, before it could be cancelled (twice)",
				info.State, human(info.Elapsed(time.Now())))
			return o
		}
	}
}

// listenUntil is when watching a cancelled call ends: Options.Listen after
// the cancel, and never before the call would have ended had the server
// ignored the cancel (with a second of room), when its run time is known;
// else a server that ignores cancels looks compliant.
func (r *runner) listenUntil(info session.RequestInfo) time.Time {
	until := info.LateFrom().Add(r.opts.Listen)
	if r.duration > 0 {
		if end := info.Started.Add(r.duration + time.Second); end.After(until) {
			until = end
		}
	}
	return until
}

// lateOf splits the late frames: responses and errors, and progress.
func lateOf(info session.RequestInfo) (answers, progress []session.LateFrame) {
	for _, l := range info.Late {
		if l.Kind == session.LateProgress {
			progress = append(progress, l)
		} else {
			answers = append(answers, l)
		}
	}
	return answers, progress
}

// cancelledCall grades check 1 (id 1) or 2 on the shared observation.
func (r *runner) cancelledCall(ctx context.Context, id int, res *Result) {
	o := r.observeCancel(ctx)
	if o.notCancelled != "" {
		res.Status, res.Reason = Skip, o.notCancelled
		return
	}
	closed := !o.info.CancelWire.LateObservable()
	if closed && o.info.LateCount == 0 {
		// A PASS here would say nothing of the server.
		res.Status, res.Reason = Skip, "the cancel closed the request's stream (protocol "+r.conn.Peer().ProtocolVersion+
			" over HTTP), so nothing for it could arrive after on that stream, and none came on another: what the server did cannot be seen here (check 8's closed-stream part grades it, through the calls that follow)"
		return
	}
	e := &res.Evidence
	e.fact("called %s (request %s), cancelled it after %s, listened %s after the cancel",
		r.tool.Name, o.info.ID, human(o.info.CancelSentAt.Sub(o.info.Started)), human(o.listened))
	if closed {
		// Its own stream is gone: what came for it came on another, and
		// the era's sentence is about any further message.
		e.fact("%d %s for it came after the cancel closed its stream, on other streams", o.info.LateCount,
			plural(o.info.LateCount, "message", "messages"))
	}
	e.time("cancelAfter", o.info.CancelSentAt.Sub(o.info.Started))
	e.time("listened", o.listened)
	if id == 1 {
		r.gradeNoResponse(o, res)
	} else {
		r.gradeProgressStops(ctx, o, res)
	}
	if o.died != "" && res.Status != Fail {
		res.Rule, res.Status = ruleGraceful, Fail
		e.fact("%s while listening after the cancel", o.died)
	}
}

// ignoredCancel notes when an answer to a cancelled call came about when
// a whole call ends: the cancel seems to have done nothing.
func (r *runner) ignoredCancel(info session.RequestInfo, answer session.LateFrame) string {
	if r.duration <= 0 || answer.At.Sub(info.Started) < r.duration*9/10 {
		return ""
	}
	return fmt.Sprintf(", %s into the call, about when a whole call ends (%s): the cancel seems to have stopped nothing",
		human(answer.At.Sub(info.Started)), human(r.duration))
}

// inFlight splits late frames at the in-flight window: those that may
// have been written before the server could read the cancel, and those
// after.
func inFlight(w window, frames []session.LateFrame) (crossed, after []session.LateFrame) {
	for _, f := range frames {
		if f.AfterCancel <= w.d {
			crossed = append(crossed, f)
		} else {
			after = append(after, f)
		}
	}
	return crossed, after
}

// earlyAnswers moves from crossed to after the answers that came well
// before a whole call would have ended: the server was not about to
// answer on its own, so even within the in-flight window such an answer
// is its reaction to the cancel (go-sdk answers a cancelled call about a
// millisecond after it, as fast as a ping comes back). It returns what
// stays crossed.
func (r *runner) earlyAnswers(info session.RequestInfo, crossed []session.LateFrame, after *[]session.LateFrame) []session.LateFrame {
	if r.duration <= 0 {
		return crossed
	}
	var stay []session.LateFrame
	for _, a := range crossed {
		if a.AfterCancel > 0 && a.At.Sub(info.Started) < r.duration*9/10 {
			*after = append(*after, a)
			continue
		}
		stay = append(stay, a)
	}
	return stay
}

// gradeNoResponse: check 1.
func (r *runner) gradeNoResponse(o *cancelObservation, res *Result) {
	e := &res.Evidence
	answers, _ := lateOf(o.info)
	w := r.inFlightWindow()
	crossed, after := inFlight(w, answers)
	crossed = r.earlyAnswers(o.info, crossed, &after)
	for _, a := range crossed {
		e.fact("a %s came %s after the cancel, within the %s: it crossed the cancel on the wire, not counted",
			a.Kind, human(a.AfterCancel), w.why)
	}
	e.count("responses", len(after))
	e.time("inFlightWindow", w.d)
	if len(after) == 0 {
		res.Status = Pass
		e.fact("no response within %s of the cancel (%s)", human(o.listened), w.why)
		return
	}
	res.Status = broken(res.Rule)
	first := after[0]
	e.time("responseAfterCancel", first.AfterCancel)
	e.fact("the server answered the cancelled request anyway: a %s %s after the cancel%s (%s)", first.Kind, human(first.AfterCancel),
		r.ignoredCancel(o.info, first), w.why)
	if first.AfterCancel <= w.d {
		e.fact("counted although within the window: it came %s into a call that takes about %s, so the server was not answering on its own",
			human(first.At.Sub(o.info.Started)), human(r.duration))
	}
	for _, a := range after {
		e.frame(fmt.Sprintf("%s %s after the cancel", a.Kind, human(a.AfterCancel)), a.Data)
	}
}

// gradeProgressStops: check 2.
func (r *runner) gradeProgressStops(ctx context.Context, o *cancelObservation, res *Result) {
	e := &res.Evidence
	answers, progress := lateOf(o.info)
	before := o.info.ProgressCount
	e.count("progressBefore", before)
	e.count("progressAfter", o.info.LateCount-len(answers))
	w := r.inFlightWindow() // check 1's, before the call below pings
	e.time("inFlightWindow", w.d)
	// Before the count of progress for tokens mcpoke never sent: a server
	// may make one up for the call that gave none.
	seen := r.tokenlessCall(ctx)
	defer r.gradeTokenless(res, seen)
	if r.strayProgress(res) {
		return
	}
	if before == 0 && len(progress) == 0 {
		if r.progressNotIncreasing(res) {
			return
		}
		res.Status, res.NotApplicable, res.Reason = Skip, true, "the tool sent no progress before the cancel, so there was none to stop"
		return
	}
	defer r.progressNotIncreasing(res)
	_, afterGrace := inFlight(w, progress)
	var afterAnswer []session.LateFrame
	for _, p := range progress {
		if len(answers) > 0 && p.At.After(answers[0].At) {
			afterAnswer = append(afterAnswer, p)
		}
	}
	switch {
	case len(afterAnswer) > 0:
		res.Rule, res.Status = ruleProgressStops, Fail
		e.fact("%d progress notifications came after the server had answered the cancelled request", len(afterAnswer))
		for _, p := range afterAnswer {
			e.frame(fmt.Sprintf("progress %s after the cancel, after the answer", human(p.AfterCancel)), p.Data)
		}
	case len(afterGrace) > 0:
		res.Status = broken(res.Rule)
		last := afterGrace[len(afterGrace)-1]
		e.time("lastProgressAfterCancel", last.AfterCancel)
		e.fact("%d progress notifications after the cancel, from %s to %s after it (%d before it): the work went on (%s)",
			len(afterGrace), human(afterGrace[0].AfterCancel), human(last.AfterCancel), before, w.why)
		e.frame(fmt.Sprintf("first progress %s after the cancel", human(afterGrace[0].AfterCancel)), afterGrace[0].Data)
		if len(afterGrace) > 1 {
			e.frame(fmt.Sprintf("last progress %s after the cancel", human(last.AfterCancel)), last.Data)
		}
	default:
		res.Status = Pass
		e.fact("progress stopped: %d before the cancel, %d within the %s, none after", before, len(progress), w.why)
	}
}

// progressNotIncreasing fails res when a progress notification of the
// run did not increase its request's progress (the session flags it):
// progress MUST increase with each notification.
func (r *runner) progressNotIncreasing(res *Result) bool {
	n, first := r.watch.notIncreasing()
	res.Evidence.count("progressNotIncreasing", n)
	if n == 0 {
		return false
	}
	r.worse(res, ruleProgressIncreases, "%d progress %s did not increase on the one before for the same request (first: %s)",
		n, plural(n, "notification", "notifications"), first[0].Detail)
	for _, v := range first {
		res.Evidence.frame("progress that did not increase", v.Frame)
	}
	return true
}

// strayProgress fails res when the server sent progress naming a token
// mcpoke never sent: progress MUST only reference tokens of an active
// request.
func (r *runner) strayProgress(res *Result) bool {
	n, first := r.watch.strayProgress()
	res.Evidence.count("progressForUnknownTokens", n)
	if n == 0 {
		return false
	}
	res.Rule, res.Status = ruleProgressTokens, Fail
	res.Evidence.fact("%d progress %s named a token mcpoke never sent",
		n, plural(n, "notification", "notifications"))
	for _, s := range first {
		res.Evidence.frame("progress for token "+clipBytes([]byte(s.Token), 40), s.Data)
	}
	return true
}

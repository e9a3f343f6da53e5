package check

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// Check 8 grades cancellation as Streamable HTTP carries it, in parts
// that each apply to some protocol versions:
//
//   - the POSTed cancel (2025 versions): notifications/cancelled, POSTed
//     apart from the request, stops the work on the request's stream;
//   - the dropped stream (2025 versions): a broken response stream is not
//     a cancel: the request completes when the stream is resumed;
//   - the closed stream (2026-07-28): closing the stream is the cancel.
//
// The check's grade is the worst of its parts', on the sentence of the
// part that decided it; a part that does not apply says why.

// part is one part of check 8.
type part struct {
	name   string
	rule   Rule
	status Status
	// why says why the part was skipped.
	why   string
	facts Evidence
}

func (p *part) skip(format string, a ...any) part {
	p.status, p.why = Skip, fmt.Sprintf(format, a...)
	return *p
}

// modernEra is the first version whose HTTP requests are cancelled by
// closing their stream.
const modernEra = "2026-07-28"

// isModern says whether version cancels by closing a request's stream.
func isModern(version string) bool { return version >= modernEra }

// httpCancellation is check 8.
func (r *runner) httpCancellation(ctx context.Context, res *Result) {
	if t := r.conn.Transport(); t != "http" {
		res.Status, res.NotApplicable, res.Reason = Skip, true, "applies to Streamable HTTP only; this server speaks "+t
		return
	}
	version := r.conn.Peer().ProtocolVersion
	res.Rule = ruleDropNotCancel
	if isModern(version) {
		res.Rule = ruleCloseCancels
	}
	parts := []part{r.postedCancel(ctx, version), r.droppedStream(ctx, version), r.closedStream(ctx, version)}
	grade(res, parts)
	r.failDead(res, "during the HTTP checks")
}

// grade sets res from its parts: the worst status, on the rule of the
// first part that broke one (else on the era's); skipped when every part
// was.
func grade(res *Result, parts []part) {
	rank := map[Status]int{Skip: 0, Pass: 1, Warn: 2, Fail: 3}
	era := res.Rule
	res.Status = Skip
	var skipped []string
	eraRan := false
	for _, p := range parts {
		if p.status == Skip {
			skipped = append(skipped, p.name+": "+p.why)
			continue
		}
		eraRan = eraRan || p.rule.Sentence == era.Sentence
		if rank[p.status] > rank[res.Status] {
			res.Status = p.status
			res.Rule = p.rule
		}
	}
	if res.Status == Pass && eraRan {
		res.Rule = era
	}
	// Otherwise a pass rests on the sentence of a part that ran, never on
	// that of one that was skipped.
	e := &res.Evidence
	for _, p := range parts {
		switch {
		case p.status == Skip && res.Status != Skip:
			e.fact("%s: skipped: %s", p.name, p.why)
		case p.status != Skip:
			e.fact("%s: %s", p.name, strings.ToUpper(string(p.status)))
			for _, f := range p.facts.Facts {
				e.fact("%s: %s", p.name, f)
			}
			for k, v := range p.facts.Counts {
				e.count(k, v)
			}
			for k, v := range p.facts.TimesMs {
				if e.TimesMs == nil {
					e.TimesMs = map[string]float64{}
				}
				e.TimesMs[k] = v
			}
			for _, f := range p.facts.Frames {
				e.frame(p.name+": "+f.Note, []byte(f.Frame))
			}
		}
	}
	if res.Status == Skip {
		res.Reason = strings.Join(skipped, "; ")
	}
}

// postedCancel: under the 2025 versions a request is cancelled over HTTP
// by POSTing notifications/cancelled apart from it; the server should stop
// the work that its still-open stream reports. It reads the cancel that
// checks 1 and 2 watch, with the HTTP side of it.
func (r *runner) postedCancel(ctx context.Context, version string) part {
	p := part{name: "POSTed cancel", rule: ruleStopWork}
	if isModern(version) {
		return p.skip("not in this era (under %s the client cancels by closing the request's stream)", version)
	}
	if r.tool == nil {
		return p.skip("%s", r.noTool)
	}
	o := r.observeCancel(ctx)
	if o.notCancelled != "" {
		return p.skip("%s", o.notCancelled)
	}
	e := &p.facts
	e.fact("request %s (%s) cancelled by POSTing notifications/cancelled %s into the call; watched %s after",
		o.info.ID, r.tool.Name, human(o.info.CancelSentAt.Sub(o.info.Started)), human(o.listened))
	quoteWire(e, aboutRequest(o.wire, o.info.ID.String(), o.info.Started, o.info.CancelAt), o.info.Started)
	answers, progress := lateOf(o.info)
	w := r.inFlightWindow()
	crossed, answered := inFlight(w, answers)
	crossed = r.earlyAnswers(o.info, crossed, &answered)
	for _, a := range crossed {
		e.fact("a %s came %s after the cancel, within the %s: it crossed the cancel, not counted", a.Kind, human(a.AfterCancel), w.why)
	}
	_, went := inFlight(w, progress)
	if len(answered) > 0 && r.selected(1) {
		// Check 1 grades the answer to this very call: one late answer is
		// not graded twice.
		e.fact("the server answered the cancelled request on its stream %s after the cancel: check 1 grades that answer", human(answered[0].AfterCancel))
		answered = nil
	}
	switch {
	case len(went) > 0:
		p.status = broken(r.afterCancelRule(ruleStopWork))
		e.fact("the work went on: %d progress notifications on the request's stream after the cancel, the last %s after it (%s)",
			len(went), human(went[len(went)-1].AfterCancel), w.why)
	case len(answered) > 0:
		p.rule = r.afterCancelRule(ruleNoResponse)
		p.status = broken(p.rule)
		e.fact("the server answered the cancelled request on its stream, %s after the cancel%s", human(answered[0].AfterCancel),
			r.ignoredCancel(o.info, answered[0]))
		e.frame(fmt.Sprintf("%s %s after the cancel", answered[0].Kind, human(answered[0].AfterCancel)), answered[0].Data)
	default:
		p.status = Pass
		e.fact("honoured: no response and no progress on the request's stream after the cancel")
	}
	return p
}

// droppedStream: under the 2025 versions a stream that breaks is not a
// cancel. The check drops the stream of a call mid-work, as a network
// failure would; the transport resumes it with GET and Last-Event-ID, and
// the call should complete. A server that gives no event ids, or refuses
// the GET, does not offer resumption (a MAY): the part is skipped.
func (r *runner) droppedStream(ctx context.Context, version string) part {
	p := part{name: "dropped stream", rule: ruleDropNotCancel}
	switch {
	case isModern(version):
		return p.skip("not in this era (under %s a closed stream is the cancellation; streams are not resumed)", version)
	case r.tool == nil:
		return p.skip("%s", r.noTool)
	}
	c, ref, skip := r.callUnderway(ctx, "dropped")
	if skip != "" {
		return p.skip("%s", skip)
	}
	info, _ := ref.Info()
	lastID, err := r.conn.DropRequestStream(info.ID)
	droppedAt := time.Now()
	if err != nil {
		_ = ref.Cancel(cancelReason)
		records := r.wire.stop()
		if errors.Is(err, transport.ErrNotResumable) {
			return p.skip("the server put no event id on the stream of request %s (no priming event, none on its messages): it does not offer resumption (a MAY), so a dropped stream could not be resumed", info.ID)
		}
		at := human(droppedAt.Sub(info.Started))
		if post, ok := postAnswer(records, info.ID.String()); ok {
			return p.skip("request %s had no SSE stream open to drop %s into the call (%s)", info.ID, at, post)
		}
		return p.skip("request %s had no SSE stream to drop %s into the call: its POST had no response headers yet (the server holds them until it has something to send: a JSON body, or a stream with no priming event to resume from)", info.ID, at)
	}
	progressAtDrop := info.ProgressCount
	e := &p.facts
	e.count("drops", 1)
	e.fact("dropped the stream of request %s (%s) %s into the call, after event id %q, as a network failure would; no cancel was sent",
		info.ID, r.tool.Name, human(droppedAt.Sub(info.Started)), lastID)
	e.time("droppedAfter", droppedAt.Sub(info.Started))
	// A server may resume the stream with what it stored and send nothing
	// live on it (the reference server's event store does): a second drop
	// and resume then brings what came meanwhile, and tells a server that
	// went on working from one that took the drop for a cancel.
	wait := r.resumeWait(info.Started)
	r.waitDone(ctx, c, wait)
	resumedTwice := false
	if inf, _ := ref.Info(); inf.State == session.Pending {
		if again, err := r.conn.DropRequestStream(info.ID); err == nil {
			resumedTwice = true
			e.count("drops", 2)
			e.fact("no answer within %s of the drop%s%s: dropped the resumed stream too, after event id %q, %s into the call",
				human(wait), r.wholeCall(), r.progressSince(inf, progressAtDrop), again, human(time.Since(inf.Started)))
			wait += secondResumeWait
			r.waitDone(ctx, c, secondResumeWait)
		}
	}
	info, _ = ref.Info()
	records := r.wire.stop()
	quoteWire(e, aboutRequest(records, info.ID.String(), info.Started, time.Time{}), info.Started)
	e.count("progressAfterDrop", info.ProgressCount-progressAtDrop)
	if ctx.Err() != nil && info.State != session.Completed && info.State != session.Failed {
		// mcpoke was interrupted, or --max-timeout ended the run: the wait
		// was cut short and the call's context cancelled it, which is no
		// fault of the server's.
		return p.skip("the run ended %s after the drop, before request %s did (%v): whether the server took the drop for a cancel could not be seen",
			human(time.Since(droppedAt)), info.ID, context.Cause(ctx))
	}
	// Nothing else can end the call: it has no timeout, and only its
	// context, whose end is above, cancels it.
	switch info.State {
	case session.Completed:
		p.status = Pass
		e.time("completedAfterDrop", info.Ended.Sub(droppedAt))
		e.fact("not taken for a cancel: the request completed on the resumed stream %s after the drop (%s after the call began)%s",
			human(info.Ended.Sub(droppedAt)), human(info.Ended.Sub(info.Started)), r.progressSince(info, progressAtDrop))
		e.frame("the answer, on the resumed stream", info.Result)
		if resumedTwice {
			e.fact("it came only on the second resume: the server had worked on, but nothing it sent after the first GET came on the stream that GET resumed")
		}
	case session.Failed:
		if info.Error != nil {
			p.status = Warn
			e.fact("the request failed after its stream dropped: error %d %q: the server seems to have taken the drop for a cancel", info.Error.Code, info.Error.Message)
			break
		}
		if strings.Contains(info.Failure, "could not resume") {
			return p.skip("the server gave event ids but does not resume streams (%s); whether it worked on after the drop cannot be seen over HTTP", info.Failure)
		}
		p.status = Warn
		e.fact("the request was lost after its stream dropped: %s", info.Failure)
	case session.Pending:
		p.status = Warn
		_ = ref.Cancel(cancelReason)
		e.fact("no answer within %s of the drop%s%s: the request was lost with its stream, as if the drop had cancelled it; mcpoke then cancelled it",
			human(wait), r.wholeCall(), r.progressSince(info, progressAtDrop))
	default: // unreachable today (see above); never a part without a grade
		return p.skip("the request ended %s after the drop, which check 8 does not grade", info.State)
	}
	return p
}

// progressSince says how many progress notifications info had after the
// first before, for a tool that reports progress.
func (r *runner) progressSince(info session.RequestInfo, before int) string {
	if !r.tool.Progress {
		return ""
	}
	n := info.ProgressCount - before
	return fmt.Sprintf(", with %d progress %s after the drop", n, plural(n, "notification", "notifications"))
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// wholeCall says how long a whole call of the tool takes, when known.
func (r *runner) wholeCall() string {
	if r.duration <= 0 {
		return ""
	}
	return fmt.Sprintf(" (a whole call takes about %s)", human(r.duration))
}

// secondResumeWait bounds the wait after a second drop: the transport's
// wait before it reconnects (a second unless the server says), and room.
const secondResumeWait = 3 * time.Second

// postAnswer quotes how the POST of request id was answered, if it was.
func postAnswer(records []wire.Record, id string) (string, bool) {
	for _, r := range records {
		if text := string(r.Data); strings.HasPrefix(text, "POST ") && strings.Contains(text, " id "+id+" → ") {
			return text, true
		}
	}
	return "", false
}

// resumeWait bounds the wait, from now, for a call started at started
// whose stream was just dropped: the rest of a whole call, then the
// transport's wait before it reconnects, and room.
func (r *runner) resumeWait(started time.Time) time.Duration {
	if r.duration <= 0 {
		return r.opts.CallTimeout
	}
	return min(max(time.Until(started.Add(r.duration)), 0)+2*time.Second, r.opts.CallTimeout)
}

// waitDone waits until c ends, d passes or ctx ends.
func (r *runner) waitDone(ctx context.Context, c *session.Call, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.Done():
	case <-t.C:
	case <-ctx.Done():
	}
}

// closedStream: under 2026-07-28 closing a request's stream is its
// cancellation (the server MUST take it so); closedstream.go.

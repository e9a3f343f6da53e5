package check

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// workingMeta is the _meta key of a server's report of the tools/call
// it is still working on: asked for in a call's _meta, it comes in the
// result's _meta as the list of their ids. The demo server gives it
// (demo.WorkingMeta); other servers may.
const workingMeta = "mcpoke/working"

// closedStream: under 2026-07-28 over HTTP closing a request's stream is
// its cancellation, and the server MUST take it so. Nothing for the
// request can arrive after the close, so the stop is seen through the
// next calls: mcpoke closes the stream of a call mid-work, then calls the
// tool again (briefly) asking, in _meta, for the server's report of the
// calls it is still working on (workingMeta). The grade:
//
//   - PASS: a following call's report no longer lists the closed call
//     (within Listen of the close);
//   - FAIL: every report until Listen lists it: the server kept working
//     on a request whose stream closed (the MUST);
//   - FAIL too when the server died or answers no following call;
//   - WARN when a following call failed with an error;
//   - SKIP when the tool reports no work in flight: the server answered
//     the following call, but whether the closed call's work stopped
//     cannot be seen over HTTP.
func (r *runner) closedStream(ctx context.Context, version string) (p part) {
	p = part{name: "closed stream", rule: ruleCloseCancels}
	switch {
	case !isModern(version):
		return p.skip("not in this era (under %s a closed stream is not a cancel: the dropped-stream part tests that)", version)
	case r.tool == nil:
		return p.skip("%s", r.noTool)
	}
	_, ref, skip := r.callUnderway(ctx, "closed")
	if skip != "" {
		return p.skip("%s", skip)
	}
	if err := ref.Cancel(cancelReason); err != nil {
		r.wire.stop()
		return p.skip("the call could not be cancelled: %v", err)
	}
	closedAt := time.Now()
	info, _ := ref.Info()
	e := &p.facts
	if info.CancelWire.LateObservable() {
		r.wire.stop()
		return p.skip("the cancel of request %s did not close its stream (%+v)", info.ID, info.CancelWire)
	}
	e.fact("closed the stream of request %s (%s) %s into the call: the cancellation in this era", info.ID, r.tool.Name, human(closedAt.Sub(info.Started)))
	e.time("closedAfter", closedAt.Sub(info.Started))
	// p is the named result: the quote lands in what is returned.
	defer func() {
		if p.status != Skip {
			quoteWire(&p.facts, aboutRequest(r.wire.stop(), info.ID.String(), info.Started, time.Time{}), info.Started)
		}
	}()

	args := quickArgs(r.tool)
	deadline := closedAt.Add(r.opts.Listen)
	for n := 1; ; n++ {
		f := r.followingReport(ctx, args)
		e.count("followingCalls", n)
		switch {
		case f.dead != "":
			p.status, p.rule = Fail, ruleGraceful
			e.fact("%s after the stream closed", f.dead)
			return p
		case f.stuck:
			p.status, p.rule = Fail, ruleGraceful
			e.fact("a following %s call (request %s) got no answer within %s of the close", r.tool.Name, f.id, human(r.opts.CallTimeout))
			return p
		case f.failed != "":
			// It answered, so it lives; a failed call reports no work in
			// flight, so whether the closed call's stopped is not seen.
			return p.skip("closed the stream of request %s %s into the call; a following %s call (request %s) failed: %s, so whether the closed call's work stopped cannot be seen",
				info.ID, human(closedAt.Sub(info.Started)), r.tool.Name, f.id, f.failed)
		case !f.reported:
			return p.skip("closed the stream of request %s %s into the call; a following %s call (request %s) was answered, but its result reports no work in flight (_meta %q), so whether the closed call's work stopped cannot be seen over HTTP",
				info.ID, human(closedAt.Sub(info.Started)), r.tool.Name, f.id, workingMeta)
		case !slices.Contains(f.working, info.ID.String()):
			p.status = Pass
			e.time("stoppedWithin", f.sent.Sub(closedAt))
			e.fact("the work stopped: %s call %d (request %s), sent %s after the close, reports %s in flight, not request %s",
				r.tool.Name, n, f.id, human(f.sent.Sub(closedAt)), workingList(f.working), info.ID)
			return p
		case !time.Now().Before(deadline) || ctx.Err() != nil:
			p.status = Fail
			e.time("stillWorkingAfter", f.sent.Sub(closedAt))
			e.fact("the work went on: %d following calls, the last sent %s after the close, each reported request %s still in flight: the server did not take the closed stream for a cancel",
				n, human(f.sent.Sub(closedAt)), info.ID)
			return p
		}
		r.sleep(ctx, 50*time.Millisecond)
	}
}

// workingList names the ids of calls in flight, or none.
func workingList(ids []string) string {
	if len(ids) == 0 {
		return "no other call"
	}
	return "calls " + strings.Join(ids, ", ")
}

// quickSeconds is the duration argument of the following calls: long
// enough to be a call of the tool, short enough to poll with.
const quickSeconds = 0.1

// quickArgs are the tool's arguments with any duration argument made
// short.
func quickArgs(t *Tool) json.RawMessage {
	var args map[string]any
	if json.Unmarshal(t.Args, &args) != nil || args == nil {
		return t.Args
	}
	for k, v := range args {
		if _, isNumber := v.(float64); isNumber && slices.Contains(durationNames, strings.ToLower(k)) {
			args[k] = quickSeconds
		}
	}
	b, _ := json.Marshal(args)
	return b
}

// followingReport is what one following call showed.
type followingReport struct {
	id       session.ID
	sent     time.Time
	dead     string
	stuck    bool
	failed   string
	reported bool
	working  []string
}

// followingReport calls the tool with args, asking for the report of
// the work in flight.
func (r *runner) followingReport(ctx context.Context, args json.RawMessage) followingReport {
	var f followingReport
	params, _ := json.Marshal(map[string]any{"name": r.tool.Name, "arguments": args,
		"_meta": map[string]any{workingMeta: true}})
	f.sent = time.Now()
	c, err := r.s.Call(ctx, "tools/call", json.RawMessage(params), session.CallOptions{})
	if err != nil {
		f.dead = r.dead()
		if f.dead == "" {
			f.failed = "could not be sent: " + err.Error()
		}
		return f
	}
	f.id = c.ID()
	r.waitDone(ctx, c, r.opts.CallTimeout)
	info, _ := r.s.Request(c.Ref()).Info()
	switch info.State {
	case session.Completed:
	case session.Failed:
		if f.dead = r.dead(); f.dead == "" {
			f.failed = info.Failure
			if info.Error != nil {
				f.failed = info.Error.Error()
			}
		}
		return f
	default:
		_ = r.s.Request(c.Ref()).Cancel("mcpoke check: no answer")
		if f.dead = r.dead(); f.dead == "" {
			f.stuck = true
		}
		return f
	}
	var res struct {
		Meta map[string][]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(info.Result, &res)
	ids, ok := res.Meta[workingMeta]
	f.reported = ok
	for _, id := range ids {
		if parsed, err := session.ParseID(id); err == nil {
			f.working = append(f.working, parsed.String())
		}
	}
	return f
}

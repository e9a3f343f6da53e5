package check

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// Check 9 grades the server's own requests (sampling/createMessage,
// elicitation/create) under cancellation. It calls a tool that asks its
// client something, holds the question, and cancels the call: a server
// that stops the call's work frees what the call holds, its question
// too, with a notifications/cancelled naming its own request. mcpoke then
// answers the question anyway, as an answer that crossed the cancel on
// the wire would: the server should ignore it, stay up, and answer the
// next call.

// askWords in a tool's name or description suggest it asks its client.
var askWords = regexp.MustCompile(`(?i)\b(elicit\w*|sampling|sample|createMessage|ask\w*)\b`)

// maxAsking bounds how many tools check 9 tries.
const maxAsking = 2

// askWait bounds the wait for the server's request after the call.
const askWait = 3 * time.Second

// askingTools are the tools that look like they ask the client, with
// arguments built from their schema; elicitation before sampling.
func askingTools(tools []mcp.Tool) []candidate {
	var out []candidate
	for _, t := range tools {
		text := strings.ReplaceAll(t.Name, "-", " ") + " " + strings.ReplaceAll(t.Name, "_", " ") + " " + t.Title + " " + t.Description
		if t.Execution.TaskSupport == "required" || !askWords.MatchString(text) {
			continue
		}
		args := buildArgs(t, true)
		if t.Schema != nil && t.Schema.Validate(args) != nil {
			continue
		}
		score := 0
		lower := strings.ToLower(t.Name + " " + t.Description)
		if strings.Contains(lower, "elicit") || strings.Contains(lower, "ask") {
			score++
		}
		if strings.Contains(lower, "url") || strings.Contains(lower, "async") {
			score-- // url mode is not declared; async ones want tasks
		}
		out = append(out, candidate{tool: t, args: args, score: score})
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return b.score - a.score })
	return out[:min(len(out), maxAsking)]
}

// ownRequests is check 9.
func (r *runner) ownRequests(ctx context.Context, res *Result) {
	version := r.conn.Peer().ProtocolVersion
	a := r.opts.Answerer
	switch {
	case isModern(version):
		res.Status, res.NotApplicable, res.Reason = Skip, true, "not in this era: under "+version+" a server sends no requests of its own "+
			"(multi round-trip requests: a tool asks by answering input_required, and the client answers by calling again, "+
			"or abandons the round by not calling again, which leaves the server nothing to cancel)"
		return
	case a == nil:
		res.Status, res.Reason = Skip, "mcpoke check declared neither sampling nor elicitation, so the server could not ask"
		return
	case !declaresTools(r.conn.Peer()):
		res.Status, res.NotApplicable, res.Reason = Skip, true, "the server declares no tools capability, so no call could make it ask"
		return
	}
	list, err := mcp.ListTools(ctx, r.s, mcp.ListOptions{Timeout: r.pingTimeout()})
	if err != nil {
		res.Status, res.Reason = Skip, "tools/list failed: "+err.Error()
		return
	}
	cands := askingTools(list.Tools)
	var tried []string
	defer func() {
		if n := r.watch.incomingRequests(); res.Status == Skip && n > 0 {
			res.Reason += fmt.Sprintf(" (it did send %d %s of its own during the run, not in a way check 9 could provoke again)", n, plural(n, "request", "requests"))
		}
	}()
	for _, c := range cands {
		q, call, outcome := r.provoke(ctx, a, c)
		if q == nil {
			tried = append(tried, c.tool.Name+" "+outcome)
			continue
		}
		r.gradeOwnCancel(ctx, a, c, q, call, res)
		if res.Status != Fail {
			r.failDead(res, "after mcpoke answered the cancelled request")
		}
		return
	}
	res.Status, res.Reason = Skip, "the server sent no requests of its own: none of its tools looks like one that asks "+
		"the client (elicitation, sampling), though mcpoke declared both"
	if len(tried) > 0 {
		res.Reason = "the server sent no requests of its own: " + strings.Join(tried, "; ")
	}
}

// callParams are tools/call's params for c.
func callParams(c candidate) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"name": c.tool.Name, "arguments": c.args})
	return b
}

// provoke calls c and waits for the server's request, which the
// answerer holds. Without one it says how the call ended.
func (r *runner) provoke(ctx context.Context, a *Answerer, c candidate) (*heldQuestion, *session.Call, string) {
	a.hold()
	call, err := r.s.Call(ctx, "tools/call", callParams(c), session.CallOptions{})
	if err != nil {
		a.drop()
		return nil, nil, "could not be called: " + err.Error()
	}
	t := time.NewTimer(askWait)
	defer t.Stop()
	select {
	case q := <-a.held:
		return &q, call, ""
	case <-call.Done():
		select { // a question may have come with the answer
		case q := <-a.held:
			return &q, call, ""
		default:
		}
		a.drop()
		info, _ := r.s.Request(call.Ref()).Info()
		return nil, nil, "ended " + info.State.String() + " without asking"
	case <-t.C:
	case <-ctx.Done():
	}
	a.drop()
	_ = r.s.Request(call.Ref()).Cancel(cancelReason)
	return nil, nil, fmt.Sprintf("asked nothing within %s (cancelled)", askWait)
}

// finding is one thing check 9 saw that bears on its grade.
type finding struct {
	status Status
	rule   Rule
}

// gradeOwnCancel cancels call while the server's request q is held,
// watches for the server's cancel of q, answers q anyway, and grades.
func (r *runner) gradeOwnCancel(ctx context.Context, a *Answerer, c candidate, q *heldQuestion, call *session.Call, res *Result) {
	e := &res.Evidence
	info, _ := r.s.Request(call.Ref()).Info()
	e.fact("called %s (request %s); %s into the call the server sent %s (its request %s), which mcpoke held unanswered",
		c.tool.Name, call.ID(), human(q.at.Sub(info.Started)), q.method, q.id)
	cancelAt := time.Now()
	if err := r.s.Request(call.Ref()).Cancel(cancelReason); err != nil {
		a.answerHeld()
		res.Status, res.Reason = Skip, "the call could not be cancelled: "+err.Error()
		return
	}
	e.fact("mcpoke cancelled the call (request %s) %s after the question came", call.ID(), human(cancelAt.Sub(q.at)))
	var worst []finding
	found := func(s Status, rule Rule) { worst = append(worst, finding{s, rule}) }

	// The server's cancel of its own request.
	right := r.awaitOwnCancel(ctx, a, q, cancelAt)
	cancels := a.cancelsSince(cancelAt)
	e.count("serverCancels", len(cancels))
	for _, sc := range cancels {
		id, err := session.ParseID(sc.requestID)
		switch {
		case err == nil && id.String() == q.id.String():
			e.time("serverCancelAfter", sc.at.Sub(cancelAt))
			e.fact("the server cancelled its request %s %s after the call's cancel (reason %q)", q.id, human(sc.at.Sub(cancelAt)), sc.reason)
			e.frame("the params of the server's notifications/cancelled", sc.params)
		case err == nil && strings.Trim(id.String(), `"`) == strings.Trim(q.id.String(), `"`):
			found(Fail, ruleCancelOwnOnly)
			e.fact("the server's cancel names %s, but its request was %s: ids keep their JSON type, so it names no request it sent", id, q.id)
			e.frame("the server's cancel, with the wrong id type", sc.params)
		case err == nil && id.String() == call.ID().String():
			found(Fail, ruleCancelOwnOnly)
			e.fact("the server's cancel names %s, mcpoke's own request (the cancelled call), not a request the server sent", id)
			e.frame("the server's cancel, for a request in the other direction", sc.params)
		default:
			found(Fail, ruleCancelOwnOnly)
			e.fact("the server sent a cancel for %s, which names no request it had in progress (its request was %s)", string(sc.requestID), q.id)
			e.frame("the server's cancel, for no request of its own", sc.params)
		}
	}
	if !right {
		found(Warn, ruleFreeResources)
		e.fact("the server did not cancel its request %s within %s of the call's cancel: it left the question open though the call that asked it was cancelled",
			q.id, human(r.opts.Listen))
	}

	// The answer that crosses the cancel.
	// Stamped before the answer goes: a quick reply to it can be read,
	// and stamped, before answerHeld returns.
	answeredAt := time.Now()
	r.crossing = &crossingAnswer{id: q.id, at: answeredAt, cancelled: right}
	a.answerHeld()
	r.waitAnswered(q.ref)
	if right {
		e.fact("mcpoke answered the question anyway, %s after the server's cancel, as an answer that crossed it on the wire would", human(answeredAt.Sub(cancels[0].at)))
	} else {
		e.fact("mcpoke then answered the question the server had left open")
	}
	if why := r.dead(); why != "" {
		found(Fail, ruleGraceful)
		e.fact("%s after mcpoke's answer", why)
		r.settle(res, worst)
		return
	}
	if _, err := r.ping(ctx); err != nil {
		found(Fail, ruleGraceful)
		e.fact("after the answer: %s", r.pingFailed(err))
		r.failDeadAfterError(res, "after mcpoke's answer")
		r.settle(res, worst)
		return
	}
	strays, noise := r.watch.since(answeredAt)
	for _, s := range strays {
		e.frame(fmt.Sprintf("%s the server sent after mcpoke's answer", s.Kind), s.Data)
	}
	for _, n := range noise {
		e.frame(fmt.Sprintf("malformed message after mcpoke's answer (%s)", n.Why), n.Line)
	}
	dups := r.watch.duplicatesSince(answeredAt)
	for _, d := range dups {
		e.frame("a second response to a request of mcpoke's, sent after mcpoke's answer", d.Data)
	}
	replies := len(strays) + len(noise) + len(dups)
	e.count("repliesToAnswer", replies)
	if replies > 0 {
		found(Warn, ruleSenderIgnores)
		e.fact("the server replied to mcpoke's answer with %d message(s): a response is never answered, and an answer after a cancel should be ignored", replies)
	} else {
		e.fact("the server sent nothing back for the answer, and %s still answered", mcp.PingMethod(r.s))
	}
	if late, _ := r.s.Request(call.Ref()).Info(); late.LateCount > 0 {
		answers, _ := lateOf(late)
		if len(answers) > 0 {
			e.fact("the cancelled call was answered %s after its cancel (check 1 grades that)", human(answers[0].AfterCancel))
		}
	}

	// A following call works.
	r.followingCall(ctx, c, res, found)
	r.settle(res, worst)
}

// awaitOwnCancel waits up to Listen for the server's cancel of q; it
// reports whether it came (the session matched it to q, id and type).
func (r *runner) awaitOwnCancel(ctx context.Context, a *Answerer, q *heldQuestion, from time.Time) bool {
	deadline := from.Add(r.opts.Listen)
	for {
		for _, sc := range a.cancelsSince(from) {
			if id, err := session.ParseID(sc.requestID); err == nil && id.String() == q.id.String() {
				return true
			}
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil || r.dead() != "" {
			return false
		}
		r.sleep(ctx, pollEvery)
	}
}

// waitAnswered waits briefly until the held request's answer was sent.
func (r *runner) waitAnswered(ref session.Ref) {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if info, ok := r.s.Request(ref).Info(); !ok || info.State.Final() {
			return
		}
		time.Sleep(pollEvery)
	}
}

// followingCall calls the tool again, answering its question at once:
// the server should answer it.
func (r *runner) followingCall(ctx context.Context, c candidate, res *Result, found func(Status, Rule)) {
	e := &res.Evidence
	begin := time.Now()
	call, err := r.s.Call(ctx, "tools/call", callParams(c), session.CallOptions{})
	if err != nil {
		found(Fail, ruleGraceful)
		e.fact("a following %s call could not be sent: %v", c.tool.Name, err)
		return
	}
	t := time.NewTimer(r.opts.CallTimeout)
	defer t.Stop()
	select {
	case <-call.Done():
	case <-t.C:
	case <-ctx.Done():
	}
	info, _ := r.s.Request(call.Ref()).Info()
	switch info.State {
	case session.Completed:
		e.time("followingCall", info.Ended.Sub(begin))
		e.fact("a following %s call (request %s), its question answered at once, completed in %s", c.tool.Name, call.ID(), human(info.Ended.Sub(begin)))
	case session.Failed:
		why := info.Failure
		if info.Error != nil {
			why = info.Error.Error()
		}
		if r.dead() != "" {
			found(Fail, ruleGraceful)
		}
		e.fact("a following %s call (request %s) failed: %s", c.tool.Name, call.ID(), why)
	default:
		found(Fail, ruleGraceful)
		_ = r.s.Request(call.Ref()).Cancel("mcpoke check: no answer")
		e.fact("a following %s call (request %s) got no answer within %s (%s): the server is stuck since the crossing answer",
			c.tool.Name, call.ID(), r.opts.CallTimeout, info.State)
	}
}

// settle grades res on the worst finding, on the rule of the first
// that was that bad; none is a pass.
func (r *runner) settle(res *Result, found []finding) {
	rank := map[Status]int{Pass: 0, Warn: 1, Fail: 2}
	res.Status = Pass
	for _, f := range found {
		if rank[f.status] > rank[res.Status] {
			res.Status, res.Rule = f.status, f.rule
		}
	}
}

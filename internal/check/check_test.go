package check

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// testOptions keep a run short: the test servers' calls last half a
// second. The in-flight window is 5 ms, not the pipe's fastest round
// trip (tens of microseconds): tests in parallel on a busy machine delay
// a frame by more than that, which a test server that answers just as
// the cancel comes would turn into a flaky WARN. The misbehaving ones
// answer 20 ms after. TestInFlightWindowIsMeasuredAndShown and the era
// tests use the measured window.
func testOptions(only ...int) Options {
	return Options{Only: only, Listen: 300 * time.Millisecond, Load: 30, CallTimeout: 3 * time.Second,
		ProbeWindow: time.Second, Grace: 5 * time.Millisecond}
}

// connected initializes a client on the server end serve starts.
func connected(t *testing.T, serve func(*transporttest.End)) *connect.Conn {
	t.Helper()
	conn, _ := connectedAsking(t, serve)
	return conn
}

// connectedAsking is connected with the answerer check 9 needs, which
// declares sampling and elicitation.
func connectedAsking(t *testing.T, serve func(*transporttest.End)) (*connect.Conn, *Answerer) {
	t.Helper()
	return connectedWith(t, serve, "", true)
}

// connectedWith is connectedAsking at a protocol version ("" the
// default), with ids counted from 1 or drawn at random.
func connectedWith(t *testing.T, serve func(*transporttest.End), protocol string, randomIDs bool) (*connect.Conn, *Answerer) {
	t.Helper()
	a, b := transporttest.Pipe()
	serve(b)
	answerer := NewAnswerer()
	o := connect.Options{Protocol: protocol, Session: session.Config{SettleWindow: 2 * time.Second, UnpredictableIDs: randomIDs}}
	answerer.Prepare(&o)
	conn := connect.Attach(connect.Spec{Name: "test"}, a, o)
	t.Cleanup(func() { conn.Close(); b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn, answerer
}

// run grades a misbehaving server.
func run(t *testing.T, bad misbehaviour, opts Options) *Report {
	t.Helper()
	protocol := ""
	if bad.modern {
		protocol = "2026-07-28"
	}
	return runWith(t, bad, opts, protocol, true)
}

// runWith is run at a protocol version, with ids counted or random.
func runWith(t *testing.T, bad misbehaviour, opts Options, protocol string, randomIDs bool) *Report {
	t.Helper()
	conn, answerer := connectedWith(t, func(b *transporttest.End) { serveMisbehaving(b, bad) }, protocol, randomIDs)
	opts.Answerer = answerer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, conn, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	onlyMustFails(t, rep)
	return rep
}

// onlyMustFails holds for every report: a check fails only on a MUST.
func onlyMustFails(t *testing.T, rep *Report) {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Status == Fail && c.Level != Must {
			t.Errorf("check %d fails at %s level (%q): only a MUST fails", c.ID, c.Level, c.Sentence)
		}
	}
}

// result returns check id of rep.
func result(t *testing.T, rep *Report, id int) Result {
	t.Helper()
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("check %d not in the report: %+v", id, rep.Checks)
	return Result{}
}

// expect asserts check id's status and level, and shows the evidence
// when they are wrong.
func expect(t *testing.T, rep *Report, id int, status Status, level Level) Result {
	t.Helper()
	c := result(t, rep, id)
	if c.Status != status || c.Level != level {
		js, _ := json.MarshalIndent(c, "", "  ")
		t.Errorf("check %d is %s (%s); want %s (%s)\n%s", id, c.Status, c.Level, status, level, js)
	}
	return c
}

func TestAWellBehavedServerPasses(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{}, testOptions())
	for _, id := range []int{1, 2, 3, 4, 5, 6, 9} {
		expect(t, rep, id, Pass, catalogue[id-1].rule.Level)
	}
	for _, id := range []int{7, 8, 10} {
		if c := expect(t, rep, id, Skip, catalogue[id-1].rule.Level); c.Reason == "" {
			t.Errorf("check %d skipped without a reason", id)
		}
	}
	if rep.Tool == nil || rep.Tool.Name != "work" || !rep.Tool.Progress {
		t.Errorf("tool = %+v; want work, picked for its progress", rep.Tool)
	}
	if rep.MustFailed() || rep.Summary != (Summary{Pass: 7, Skip: 3, Ran: 7, Selected: 10}) {
		t.Errorf("summary %+v, MustFailed %v", rep.Summary, rep.MustFailed())
	}
}

func TestDemoServerPassesEverythingItImplements(t *testing.T) {
	t.Parallel()
	conn, answerer := connectedAsking(t, func(b *transporttest.End) { demo.NewSession(b, nil) })
	opts := testOptions()
	opts.Answerer = answerer
	opts.Tool, opts.Args = "sleep", json.RawMessage(`{"seconds":0.5,"steps":10}`)
	rep, err := Run(context.Background(), conn, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{1, 2, 3, 4, 5, 6, 9} {
		expect(t, rep, id, Pass, catalogue[id-1].rule.Level)
	}
}

func TestCheck1WarnsWhenTheCancelledCallIsAnswered(t *testing.T) {
	t.Parallel()
	// Answered later than the in-flight window (twice a ping's round
	// trip), so that it cannot be taken for an answer that crossed the
	// cancel.
	rep := run(t, misbehaviour{answerCancelled: true, answerDelay: 20 * time.Millisecond}, testOptions(1))
	c := expect(t, rep, 1, Warn, Should)
	if c.Evidence.Counts["responses"] != 1 || len(c.Evidence.Frames) != 1 || !strings.Contains(c.Evidence.Frames[0].Frame, `"stopped"`) {
		t.Errorf("evidence %+v; want the one late response and its frame", c.Evidence)
	}
	if rep.MustFailed() {
		t.Error("a broken SHOULD failed the run")
	}
}

// A server that ignores the cancel and answers when the work is done is
// caught even when the work outlasts Listen: check 1 listens until the
// call's own duration has passed.
func TestCheck1WaitsOutTheCallsDuration(t *testing.T) {
	t.Parallel()
	opts := testOptions(1)
	opts.Tool, opts.Args = "work", json.RawMessage(`{"seconds":1.2}`)
	rep := run(t, misbehaviour{ignoreCancel: true}, opts)
	c := expect(t, rep, 1, Warn, Should)
	if c.Evidence.Counts["responses"] != 1 {
		t.Errorf("evidence %+v; want the one response that came when the work was done", c.Evidence)
	}
}

func TestCheck2WarnsWhenProgressGoesOnAfterTheCancel(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{progressAfterCancel: true}, testOptions(1, 2))
	expect(t, rep, 1, Pass, Should)
	c := expect(t, rep, 2, Warn, Should)
	if c.Evidence.Counts["progressAfter"] < 3 || c.Evidence.TimesMs["lastProgressAfterCancel"] < 100 {
		t.Errorf("evidence %+v; want progress counted and timed after the cancel", c.Evidence)
	}
}

func TestCheck2FailsWhenProgressComesAfterTheAnswer(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{answerCancelled: true, answerDelay: 20 * time.Millisecond, progressAfterCancel: true}, testOptions(2))
	c := expect(t, rep, 2, Fail, Must)
	if c.Sentence != ruleProgressStops.Sentence {
		t.Errorf("sentence %q; want the progress spec's MUST", c.Sentence)
	}
	if !rep.MustFailed() {
		t.Error("a broken MUST did not fail the run")
	}
}

func TestCheck3FailsWhenTheServerDiesOnACancel(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{dieOnCancel: true}, testOptions(3))
	c := expect(t, rep, 3, Fail, Must)
	if !strings.Contains(strings.Join(c.Evidence.Facts, "\n"), "connection ended") {
		t.Errorf("facts %q; want the connection's end", c.Evidence.Facts)
	}
}

func TestCheck4WarnsWhenAnInvalidCancelIsAnswered(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{answerInvalidCancel: true}, testOptions(4))
	c := expect(t, rep, 4, Warn, Should)
	// Every invalid cancel names no call in flight: each is answered.
	if c.Evidence.Counts["answered"] != 4 || len(c.Evidence.Frames) == 0 || !strings.Contains(c.Evidence.Frames[0].Frame, "unknown request") {
		t.Errorf("evidence %+v; want the 4 error responses counted, with frames", c.Evidence)
	}
}

func TestCheck5WarnsWhenAStringIDCancelsANumberedRequest(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{looseIDs: true}, testOptions(5))
	c := expect(t, rep, 5, Warn, Should)
	if !strings.Contains(strings.Join(c.Evidence.Facts, "\n"), "no answer") {
		t.Errorf("facts %q; want the unanswered request", c.Evidence.Facts)
	}
}

// A server that takes the string "N" for request N and fails that
// request with an error response has still stopped the wrong request: a
// WARN, not the PASS of a request that completed.
func TestCheck5WarnsWhenAStringIDCancelFailsTheRequest(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{looseIDs: true, failCancelled: true}, testOptions(5))
	c := expect(t, rep, 5, Warn, Should)
	if facts := strings.Join(c.Evidence.Facts, "\n"); !strings.Contains(facts, "failed after the cancel") || !strings.Contains(facts, "request cancelled") {
		t.Errorf("facts %q; want the request failed with the server's error", c.Evidence.Facts)
	}
}

func TestCheck6FailsWhenACancelLosesOtherCalls(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{cancelAll: true}, testOptions(6))
	c := expect(t, rep, 6, Fail, Must)
	if c.Evidence.Counts["uncancelledUnanswered"] == 0 {
		t.Errorf("evidence %+v; want unanswered uncancelled calls", c.Evidence)
	}
}

func TestOnlyAndSkipSelectChecks(t *testing.T) {
	t.Parallel()
	opts := testOptions(3, 4, 8)
	opts.Skip = []int{8}
	rep := run(t, misbehaviour{}, opts)
	if len(rep.Checks) != 2 || rep.Checks[0].ID != 3 || rep.Checks[1].ID != 4 {
		t.Errorf("checks %+v; want 3 and 4 only", rep.Checks)
	}
	if _, err := Run(context.Background(), nil, Options{Only: []int{11}}); err == nil {
		t.Error("check 11 accepted")
	}
}

func TestCheck9WarnsWhenTheServerLeavesItsRequestOpen(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{keepOwnRequest: true}, testOptions(9))
	c := expect(t, rep, 9, Warn, Should)
	if c.Sentence != ruleFreeResources.Sentence || c.Evidence.Counts["serverCancels"] != 0 {
		t.Errorf("rule %q, evidence %+v; want the unfreed request, no cancel", c.Sentence, c.Evidence)
	}
}

func TestCheck9WarnsWhenTheServerAnswersTheCrossingAnswer(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{errorOnLateAnswer: true}, testOptions(9))
	c := expect(t, rep, 9, Warn, Should)
	if c.Sentence != ruleSenderIgnores.Sentence || c.Evidence.Counts["repliesToAnswer"] != 1 || c.Evidence.Counts["serverCancels"] != 1 {
		t.Errorf("rule %q, evidence %+v; want the one reply to the answer", c.Sentence, c.Evidence)
	}
}

// The server dies on mcpoke's answer, not on a cancel: the root cause
// names the answer (and whether the server had cancelled its request).
func TestCheck9FailsWhenTheServerDiesOnTheCrossingAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bad  misbehaviour
		says string
	}{
		{misbehaviour{dieOnLateAnswer: true}, "it ended after mcpoke answered the server's request 1, which it had cancelled"},
		{misbehaviour{dieOnLateAnswer: true, keepOwnRequest: true},
			"it ended after mcpoke answered the server's request 1, which it had left open when mcpoke cancelled the call that asked it"},
	} {
		rep := run(t, tc.bad, testOptions(9))
		c := expect(t, rep, 9, Fail, Must)
		if c.Sentence != ruleGraceful.Sentence || !hasFact(c, "connection ended") || !hasFact(c, tc.says) || hasFact(c, "exits on a cancel") {
			t.Errorf("rule %q, facts %q; want the connection's end after mcpoke's answer: %q", c.Sentence, c.Evidence.Facts, tc.says)
		}
	}
}

func TestCheck9FailsWhenTheServersCancelNamesNoRequestOfItsOwn(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{ownCancelAsString: true}, testOptions(9))
	c := expect(t, rep, 9, Fail, Must)
	if c.Sentence != ruleCancelOwnOnly.Sentence || !strings.Contains(strings.Join(c.Evidence.Facts, "\n"), "JSON type") {
		t.Errorf("rule %q, facts %q; want the wrong-typed id named", c.Sentence, c.Evidence.Facts)
	}
}

func TestCheck9FailsWhenTheNextCallIsNeverAnswered(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{stuckAfterLateAnswer: true}, testOptions(9))
	c := expect(t, rep, 9, Fail, Must)
	if c.Sentence != ruleGraceful.Sentence || !hasFact(c, "got no answer within") {
		t.Errorf("rule %q, facts %q; want the unanswered next call", c.Sentence, c.Evidence.Facts)
	}
}

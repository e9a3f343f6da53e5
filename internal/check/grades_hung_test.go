package check

import (
	"strings"
	"testing"
	"time"
)

// hungOptions are testOptions with a short liveness ping, for servers
// that stop answering it.
func hungOptions(only ...int) Options {
	o := testOptions(only...)
	o.PingTimeout = 300 * time.Millisecond
	return o
}

// A server that lives on but answers no ping after check 1's cancel (its
// second, after the probe's) fails check 3 at the MUST to handle the race
// gracefully, saying which ping went unanswered and how long it waited.
func TestCheck3FailsAServerHungAfterTheCancel(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{deafAfterCancelN: 2}, hungOptions(3))
	c := expect(t, rep, 3, Fail, Must)
	if c.Sentence != ruleGraceful.Sentence || !hasFact(c, "no answer to ping within 300ms") {
		t.Errorf("check 3: %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
}

// Hung by the load's cancels, the server fails check 6: the ping after
// the load gets no answer.
func TestCheck6FailsAServerHungByTheLoad(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{deafAfterCancelN: 2}, hungOptions(6))
	c := expect(t, rep, 6, Fail, Must)
	if c.Sentence != ruleGraceful.Sentence || !hasFact(c, "after the load: no answer to ping") {
		t.Errorf("check 6: %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
}

// Progress that goes on after the load's cancels moves check 6's grade:
// the cancellation page's SHOULD in 2025-11-25, the stdio page's MUST
// NOT send any further messages in 2026-07-28.
func TestCheck6GradesProgressAfterTheLoadsCancels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		modern bool
		status Status
		level  Level
		spec   string
	}{
		{false, Warn, Should, "cancellation.mdx"},
		{true, Fail, Must, "stdio.mdx"},
	} {
		rep := run(t, misbehaviour{progressAfterCancel: true, modern: tc.modern}, testOptions(6))
		c := expect(t, rep, 6, tc.status, tc.level)
		if c.Evidence.Counts["progressAfterCancel"] == 0 || !strings.Contains(c.Spec, tc.spec) || !hasFact(c, "after their cancels: ") {
			t.Errorf("modern %v: check 6 rests on %q (%s), counts %v, facts %q", tc.modern, c.Sentence, c.Spec, c.Evidence.Counts, c.Evidence.Facts)
		}
	}
}

// A server that hangs on mcpoke's answer to the request it cancelled
// fails check 9: the ping after the answer goes unanswered.
func TestCheck9FailsAServerHungByTheCrossingAnswer(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{deafAfterLateAnswer: true}, hungOptions(9))
	c := expect(t, rep, 9, Fail, Must)
	if c.Sentence != ruleGraceful.Sentence || !hasFact(c, "after the answer: no answer to ping within 300ms") {
		t.Errorf("check 9: %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
}

// Hung since the probe's cancel (check 1 makes the run probe), the
// server fails check 4 before any invalid cancel: the ping whose id it
// uses as the finished request's gets no answer.
func TestCheck4FailsAServerHungBeforeItsInvalidCancels(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{deafAfterCancelN: 1}, hungOptions(1, 4))
	c := expect(t, rep, 4, Fail, Must)
	if c.Sentence != ruleGraceful.Sentence || len(c.Evidence.Facts) != 1 || !hasFact(c, "no answer to ping within 300ms") {
		t.Errorf("check 4: %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
}

// A server that is only slow under the load, its uncancelled calls still
// reporting progress when check 6 stops waiting, broke nothing: check 6
// could not tell, and skips saying so (it warned, under its MUST label).
func TestCheck6SkipsWhenTheLoadIsTooSlowToTell(t *testing.T) {
	t.Parallel()
	opts := testOptions(6)
	opts.CallTimeout = 500 * time.Millisecond
	rep := run(t, misbehaviour{slowUnder: 5}, opts)
	c := expect(t, rep, 6, Skip, Must)
	if !strings.Contains(c.Reason, "too slow to tell") || c.Evidence.Counts["uncancelledStillWorking"] == 0 {
		t.Errorf("check 6: reason %q, counts %v", c.Reason, c.Evidence.Counts)
	}
	if rep.MustFailed() {
		t.Error("a slow server failed the run")
	}
}

// A server that dies on check 5's wrong-typed cancel (its second cancel,
// after the probe's) fails check 5 at the MUST to handle the race
// gracefully (it warned that the server "may have taken" the string for
// the number), and the cause names that cancel, not the probe's; one
// that dies on check 4's cancel for an unknown id is told so too.
func TestChecks4And5NameTheCancelTheyWroteThatKilledTheServer(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{dieOnCancelN: 2}, testOptions(5))
	c := expect(t, rep, 5, Fail, Must)
	if c.Sentence != ruleGraceful.Sentence || !hasFact(c, `it ended after mcpoke's notifications/cancelled for "`) || hasFact(c, "probe") {
		t.Errorf("check 5: %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
	rep = run(t, misbehaviour{dieOnCancel: true}, testOptions(4))
	c = expect(t, rep, 4, Fail, Must)
	if !hasFact(c, "it ended after mcpoke's notifications/cancelled (unknown id)") {
		t.Errorf("check 4: facts %q", c.Evidence.Facts)
	}
}

// Uncancelled calls failed with an error that says cancelled: the server
// took a cancel for other requests (it warned, under check 6's MUST
// label). Errors that say nothing of a cancel are the tool's own: noted,
// not graded.
func TestCheck6FailsCallsFailedAsCancelledAndNotesOtherErrors(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{cancelAll: true, failCancelled: true}, testOptions(6))
	c := expect(t, rep, 6, Fail, Must)
	if c.Sentence != ruleGraceful.Sentence || !hasFact(c, "failed as cancelled") {
		t.Errorf("check 6: %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
	rep = run(t, misbehaviour{errorUnder: 5}, testOptions(6))
	c = expect(t, rep, 6, Pass, Must)
	if c.Evidence.Counts["uncancelledErrors"] == 0 || !hasFact(c, "does not say cancelled") {
		t.Errorf("check 6: counts %v, facts %q", c.Evidence.Counts, c.Evidence.Facts)
	}
}

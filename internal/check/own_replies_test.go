package check

import "testing"

// Whatever the server sends back for the answer to a request it
// cancelled counts against it: a malformed line, or a second response
// to one of mcpoke's requests, as much as an error response.
func TestOwnRequestsCountEveryReplyToTheCrossingAnswer(t *testing.T) {
	t.Parallel()
	for name, bad := range map[string]misbehaviour{
		"malformed":         {noiseOnLateAnswer: true},
		"a second response": {duplicateOnLateAnswer: true},
	} {
		rep := run(t, bad, testOptions(9))
		c := expect(t, rep, 9, Warn, Should)
		if c.Sentence != ruleSenderIgnores.Sentence || c.Evidence.Counts["repliesToAnswer"] != 1 {
			t.Errorf("%s: rule %q, evidence %+v; want the one reply to the answer", name, c.Sentence, c.Evidence)
		}
	}
}

// An answer to the cancelled call is check 1's to grade; check 9 says it
// came and passes a server that otherwise behaves.
func TestOwnRequestsNoteTheAnswerToTheCancelledCall(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{answerCancelled: true}, testOptions(9))
	c := expect(t, rep, 9, Pass, Should)
	if !hasFact(c, "the cancelled call was answered ") || !hasFact(c, "after its cancel (check 1 grades that)") {
		t.Errorf("facts %q; want the answer to the cancelled call noted, for check 1", c.Evidence.Facts)
	}
}

// Check 9 fails on the rule of its first failure: a cancel with the
// wrong id type, though the server then also died on the answer.
func TestOwnRequestsFailOnTheFirstBrokenRule(t *testing.T) {
	t.Parallel()
	rep := run(t, misbehaviour{ownCancelAsString: true, dieOnLateAnswer: true}, testOptions(9))
	c := expect(t, rep, 9, Fail, Must)
	if c.Sentence != ruleCancelOwnOnly.Sentence || !hasFact(c, "JSON type") || !hasFact(c, "connection ended") {
		t.Errorf("rule %q, facts %q; want the wrong-typed id's rule, and the death told too", c.Sentence, c.Evidence.Facts)
	}
}

// A server's cancel must name a request the server sent: not the call
// mcpoke cancelled, nor one it never sent. Each fails check 9, saying
// which it named.
func TestOwnRequestsFailACancelOfNoRequestOfTheServers(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		bad  misbehaviour
		fact string
	}{
		"mcpoke's call": {misbehaviour{ownCancelNamesCall: true}, "mcpoke's own request (the cancelled call), not a request the server sent"},
		"an unknown id": {misbehaviour{ownCancelUnknown: true}, "the server sent a cancel for 9999, which names no request it had in progress (its request was 1)"},
	} {
		rep := run(t, tc.bad, testOptions(9))
		c := expect(t, rep, 9, Fail, Must)
		if c.Sentence != ruleCancelOwnOnly.Sentence || !hasFact(c, tc.fact) || c.Evidence.Counts["serverCancels"] != 1 {
			t.Errorf("%s: rule %q, facts %q; want the cancel's rule and %q", name, c.Sentence, c.Evidence.Facts, tc.fact)
		}
	}
}

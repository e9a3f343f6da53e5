package check

import "testing"

// A server that goes on reporting progress on the request's stream after
// the POSTed cancel: check 8's POSTed-cancel part warns (the cancellation
// page's SHOULD stop processing, 2025-11-25).
func TestCheck8WarnsWhenProgressGoesOnAfterAPOSTedCancel(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{progressAfterCancel: true}, testOptions(8))
	c := expect(t, rep, 8, Warn, Should)
	if c.Sentence != ruleStopWork.Sentence || !hasFact(c, "POSTed cancel: WARN") || !hasFact(c, "the work went on: ") {
		t.Errorf("sentence %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
}

// A server that takes a dropped stream for a cancel and fails the call
// with an error: the resumed stream brings the error, and check 8's
// dropped-stream part warns (disconnection SHOULD NOT be taken for a
// cancel). (Its error to the POSTed cancel warns first, and check 8
// quotes the first part that was that bad.)
func TestCheck8WarnsWhenADroppedStreamFailsTheCall(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{dropIsCancel: true, failCancelled: true}, testOptions(8))
	c := expect(t, rep, 8, Warn, Should)
	if !hasFact(c, "dropped stream: WARN") || !hasFact(c, `dropped stream: the request failed after its stream dropped: error -32800 "request cancelled"`) {
		t.Errorf("facts %q", c.Evidence.Facts)
	}
}

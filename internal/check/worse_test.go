package check

import (
	"slices"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// A grade that rests on a broken rule is no longer a skip: the skip's
// reason and "not applicable" go (the reason stays, as a fact), so a
// report never prints FAIL beside "not applicable" or a skip's why.
func TestWorseTurnsASkipIntoAGrade(t *testing.T) {
	res := &Result{Status: Skip, NotApplicable: true, Reason: "the tool sent no progress before the cancel"}
	(&runner{}).worse(res, ruleProgressTokens, "progress for a call without a token")
	if res.Status != Fail || res.NotApplicable || res.Reason != "" || res.Rule.Sentence != ruleProgressTokens.Sentence {
		t.Errorf("after worse: status %s, not applicable %v, reason %q, rule %q", res.Status, res.NotApplicable, res.Reason, res.Rule.Sentence)
	}
	if !slices.Contains(res.Evidence.Facts, "the tool sent no progress before the cancel") {
		t.Errorf("the skip's reason is lost: facts %q", res.Evidence.Facts)
	}

	kept := &Result{Status: Skip, Reason: "too slow to tell", Evidence: Evidence{Facts: []string{"too slow to tell"}}}
	(&runner{}).worse(kept, ruleProgressTokens, "stray progress")
	if n := len(kept.Evidence.Facts); n != 2 {
		t.Errorf("the reason, already a fact, was said again: facts %q", kept.Evidence.Facts)
	}
}

// An error says its request was cancelled by -32800 or the word as a
// word; a tool's own error that only mentions cancelling does not.
func TestSaysCancelled(t *testing.T) {
	for msg, want := range map[string]bool{
		"Request cancelled":        true,
		"context canceled":         true,
		"CANCELLED by the client":  true,
		"cannot cancel order 12":   false,
		"cancel_policy missing":    false,
		"cancellable=false":        false,
		"the job was uncancelled?": false,
	} {
		if got := saysCancelled(&session.RPCError{Code: -32603, Message: msg}); got != want {
			t.Errorf("saysCancelled(%q) = %v, want %v", msg, got, want)
		}
	}
	if !saysCancelled(&session.RPCError{Code: codeRequestCancelled, Message: "stopped"}) {
		t.Error("-32800 does not say cancelled")
	}
}

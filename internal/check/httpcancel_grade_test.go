package check

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Check 8's grade is the worst of its parts', on the sentence of the
// first part that was that bad; a pass rests on the era's sentence when
// the era's part ran, else on that of a part that ran; skipped only when
// every part was, saying why for each.
func TestHTTPCancellationGradesOnTheFirstWorstPart(t *testing.T) {
	ran := func(name string, rule Rule, s Status) part { return part{name: name, rule: rule, status: s} }
	skipped := func(name, why string) part { return part{name: name, rule: ruleStopWork, status: Skip, why: why} }
	for name, tc := range map[string]struct {
		parts  []part
		status Status
		rule   Rule
		reason string
	}{
		"every part skipped":   {[]part{skipped("a", "no a"), skipped("b", "no b")}, Skip, ruleDropNotCancel, "a: no a; b: no b"},
		"the era's part ran":   {[]part{ran("a", ruleStopWork, Pass), ran("b", ruleDropNotCancel, Pass)}, Pass, ruleDropNotCancel, ""},
		"only another ran":     {[]part{ran("a", ruleStopWork, Pass), skipped("b", "no b")}, Pass, ruleStopWork, ""},
		"a warning":            {[]part{ran("a", ruleStopWork, Pass), ran("b", ruleDropNotCancel, Warn)}, Warn, ruleDropNotCancel, ""},
		"the first warning":    {[]part{ran("a", ruleStopWork, Warn), ran("b", ruleDropNotCancel, Warn)}, Warn, ruleStopWork, ""},
		"a failure after":      {[]part{ran("a", ruleNoResponse, Warn), ran("b", ruleCloseCancels, Fail)}, Fail, ruleCloseCancels, ""},
		"a failure before":     {[]part{ran("a", ruleCloseCancels, Fail), ran("b", ruleNoResponse, Warn)}, Fail, ruleCloseCancels, ""},
		"a pass after a skip":  {[]part{skipped("a", "no a"), ran("b", ruleStopWork, Pass)}, Pass, ruleStopWork, ""},
		"a warning, the era's": {[]part{ran("a", ruleDropNotCancel, Warn), ran("b", ruleStopWork, Pass)}, Warn, ruleDropNotCancel, ""},
	} {
		res := Result{Rule: ruleDropNotCancel}
		grade(&res, tc.parts)
		if res.Status != tc.status || res.Rule.Sentence != tc.rule.Sentence || res.Reason != tc.reason {
			t.Errorf("%s: %s on %q, reason %q; want %s on %q, reason %q", name, res.Status, res.Rule.Sentence, res.Reason, tc.status, tc.rule.Sentence, tc.reason)
		}
	}
}

// The parts that ran bring their evidence, each line named by its part;
// those skipped say why, unless all were (the reason says it then).
func TestHTTPCancellationPartsBringTheirEvidence(t *testing.T) {
	a := part{name: "a", rule: ruleStopWork, status: Warn}
	a.facts.fact("saw x")
	a.facts.count("drops", 2)
	a.facts.time("droppedAfter", 5*time.Millisecond)
	a.facts.frame("the answer", []byte(`{"id":1}`))
	b := part{name: "b", status: Skip, why: "no b"}
	res := Result{Rule: ruleDropNotCancel}
	grade(&res, []part{a, b})
	want := []string{"a: WARN", "a: saw x", "b: skipped: no b"}
	e := res.Evidence
	if !slices.Equal(e.Facts, want) || e.Counts["drops"] != 2 || e.TimesMs["droppedAfter"] != 5 ||
		len(e.Frames) != 1 || e.Frames[0].Note != "a: the answer" || e.Frames[0].Frame != `{"id":1}` {
		t.Errorf("evidence %+v; want facts %q, the count, the time and the frame of a", e, want)
	}
	res = Result{Rule: ruleDropNotCancel}
	grade(&res, []part{b})
	if len(res.Evidence.Facts) != 0 {
		t.Errorf("every part skipped: facts %q; want none (the reason says why)", res.Evidence.Facts)
	}
}

// With check 1 in the run and nothing sent after the cancel, check 8's
// POSTed cancel passes too.
func TestHTTPCancellationPassesBesideCheck1(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{}, testOptions(1, 8))
	expect(t, rep, 1, Pass, Should)
	if c := expect(t, rep, 8, Pass, Should); !hasFact(c, "POSTed cancel: PASS") || hasFact(c, "check 1 grades that answer") {
		t.Errorf("facts %q; want the POSTed cancel passed, no answer left to check 1", c.Evidence.Facts)
	}
}

// The count of progress after a drop is what the fact about it says.
func TestHTTPCancellationCountsTheProgressAfterTheDrop(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{}, testOptions(8))
	c := expect(t, rep, 8, Pass, Should)
	n := -1
	for _, f := range c.Evidence.Facts {
		if _, after, ok := strings.Cut(f, "not taken for a cancel"); ok {
			if _, count, ok := strings.Cut(after, ", with "); ok {
				n, _ = strconv.Atoi(strings.Fields(count)[0])
			}
		}
	}
	if got, ok := c.Evidence.Counts["progressAfterDrop"]; n < 0 || !ok || got != n {
		t.Errorf("progressAfterDrop %d; the facts say %d: %q", got, n, c.Evidence.Facts)
	}
}

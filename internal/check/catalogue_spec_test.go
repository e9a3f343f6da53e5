package check

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// specRules are the rules whose sentence is quoted from one spec page.
var specRules = map[string]Rule{
	"ruleNoResponse": ruleNoResponse, "ruleStopWork": ruleStopWork, "ruleStopWorkModern": ruleStopWorkModern,
	"ruleProgressStops": ruleProgressStops, "ruleGraceful": ruleGraceful, "ruleIgnoreInvalid": ruleIgnoreInvalid,
	"ruleDropNotCancel": ruleDropNotCancel, "ruleFreeResources": ruleFreeResources, "ruleCancelOwnOnly": ruleCancelOwnOnly,
	"ruleNoFurtherStdio": ruleNoFurtherStdio, "ruleNoFurtherHTTP": ruleNoFurtherHTTP, "ruleProgressTokens": ruleProgressTokens,
	"ruleProgressIncreases": ruleProgressIncreases, "ruleSenderIgnores": ruleSenderIgnores,
	"ruleTaskCancelled": ruleTaskCancelled, "ruleTaskStaysCancelled": ruleTaskStaysCancelled, "ruleTaskRefuseTerminal": ruleTaskRefuseTerminal,
}

// fragmentSplit cuts a quoted sentence into the pieces that must each be
// on its page: the quote joins list items with ":", ";" and ",", elides
// with "…", and runs two sentences of a list on with ".".
var fragmentSplit = regexp.MustCompile(`[:;…,.]`)

// Every sentence a check quotes is on its page in every version it
// lists, and on no version it leaves out: a report never quotes words a
// version does not have. It reads the spec pages from $MCPOKE_SPEC_DIR
// (<version>/<page>.mdx); without them it skips.
func TestQuotedSentencesAreInTheSpecOfEachVersionTheyList(t *testing.T) {
	dir := os.Getenv("MCPOKE_SPEC_DIR")
	if dir == "" {
		t.Skip("MCPOKE_SPEC_DIR is not set: no spec pages to read the quoted sentences in")
	}
	flat := regexp.MustCompile(`\s+`)
	for name, rule := range specRules {
		page := strings.SplitN(rule.Spec, ",", 2)[0]
		for _, version := range allVersions {
			b, err := os.ReadFile(filepath.Join(dir, version, page))
			if err != nil {
				if os.IsNotExist(err) {
					if slices.Contains(rule.Versions, version) {
						t.Errorf("%s lists %s, which has no %s", name, version, page)
					}
					continue
				}
				t.Fatal(err)
			}
			text := flat.ReplaceAllString(strings.NewReplacer("**", "", "`", "", "- ", " ").Replace(string(b)), " ")
			has := true
			for _, f := range fragmentSplit.Split(rule.Sentence, -1) {
				if f = strings.TrimSpace(f); f != "" && !strings.Contains(text, f) {
					has = false
					if slices.Contains(rule.Versions, version) {
						t.Errorf("%s (%s): %q is not in %s/%s", name, rule.Level, f, version, page)
					}
				}
			}
			if has && !slices.Contains(rule.Versions, version) {
				t.Errorf("%s: %s/%s has the sentence, but the rule does not list %s", name, version, page, version)
			}
		}
	}
}

// Check 10 quotes the cancellation page in the words of the run's era:
// "Servers receiving …" in 2026-07-28, "Receivers of …" before. (Its
// skip here, with no process to meter, keeps the rule it would grade on.)
func TestCheck10QuotesTheEraWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		modern bool
		rule   Rule
	}{{false, ruleStopWork}, {true, ruleStopWorkModern}} {
		rep := run(t, misbehaviour{modern: tc.modern}, testOptions(10))
		if c := result(t, rep, 10); c.Sentence != tc.rule.Sentence || c.Versions[0] != tc.rule.Versions[0] {
			t.Errorf("modern %v: check 10 quotes %q %v; want %q", tc.modern, c.Sentence, c.Versions, tc.rule.Sentence)
		}
	}
}

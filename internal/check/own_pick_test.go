package check

import (
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

func names(cs []candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.tool.Name)
	}
	return out
}

// Check 9 tries the tools that look like they ask the client: those that
// elicit or ask first, a url or async one last, never one that needs a
// task, asks nothing or refuses the arguments built from its schema; two
// at most.
func TestAskingToolsRanksElicitationFirst(t *testing.T) {
	tools := parseTools(t,
		`{"name":"ask-form","inputSchema":{"type":"object","required":["form"],"properties":{"form":{"type":"object"}}}}`,
		`{"name":"sampleLLM","description":"Runs sampling"}`,
		`{"name":"elicit-url","description":"Elicits a URL"}`,
		`{"name":"trigger-elicitation-request"}`,
		`{"name":"research","description":"asks a question","execution":{"taskSupport":"required"}}`,
		`{"name":"echo"}`,
		`{"name":"user_ask"}`,
	)
	if got := names(askingTools(tools)); len(got) != 2 || got[0] != "trigger-elicitation-request" || got[1] != "user_ask" {
		t.Errorf("asking tools %v; want trigger-elicitation-request, user_ask", got)
	}
	if got := names(askingTools([]mcp.Tool{tools[1], tools[2], tools[5]})); len(got) != 2 || got[0] != "sampleLLM" || got[1] != "elicit-url" {
		t.Errorf("asking tools %v; want sampleLLM, then elicit-url (a url one last)", got)
	}
}

// Check 9's grade is its worst finding, on the rule of the first that bad.
func TestSettleKeepsTheFirstWorstFinding(t *testing.T) {
	r := &runner{}
	var res Result
	r.settle(&res, nil)
	if res.Status != Pass {
		t.Errorf("no findings: %s; want pass", res.Status)
	}
	res = Result{Rule: ruleSenderIgnores}
	r.settle(&res, []finding{{Warn, ruleFreeResources}, {Fail, ruleCancelOwnOnly}, {Warn, ruleSenderIgnores}, {Fail, ruleGraceful}})
	if res.Status != Fail || res.Rule.Sentence != ruleCancelOwnOnly.Sentence {
		t.Errorf("settled %s on %q; want fail on the first fail's rule, %q", res.Status, res.Rule.Sentence, ruleCancelOwnOnly.Sentence)
	}
	res = Result{}
	r.settle(&res, []finding{{Warn, ruleFreeResources}, {Warn, ruleSenderIgnores}})
	if res.Status != Warn || res.Rule.Sentence != ruleFreeResources.Sentence {
		t.Errorf("settled %s on %q; want warn on %q", res.Status, res.Rule.Sentence, ruleFreeResources.Sentence)
	}
}

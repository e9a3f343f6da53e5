package ui

import (
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// A request's timeout changes only when its prompt is accepted: typing
// sets nothing, and esc leaves the request as it was.
func TestRequestTimeoutPromptAbandonedSetsNothing(t *testing.T) {
	d, tc := newTestModel(t, 140, 30)
	d.callTool(tc, "sleep")
	d.waitScreen("tools/call sleep", "1 pending", "timeout none")
	d.key("tab")
	d.key("t")
	d.waitScreen("timeout of #3 tools/call sleep from now")
	d.typeText("2")
	d.key("esc")
	d.settle()
	if r := d.m.table.Selected(); r == nil || r.Timeout != 0 {
		t.Fatalf("an abandoned timeout prompt set the selected request's timeout (row %v)", r != nil && r.Timeout != 0)
	}
	if s := d.screen(); strings.Contains(s, "times out") || !strings.Contains(s, "timeout none") {
		t.Fatalf("an abandoned timeout prompt changed the request:\n%s", s)
	}
}

// A root is added only when its prompt is accepted: nothing goes to the
// server while the directory is typed, nor when esc abandons it.
func TestRootPromptAbandonedAddsNothing(t *testing.T) {
	d, _ := newAnsweringModel(t, 140, 30, mcp.Policy{})
	before := len(d.m.asks.roots.Roots())
	d.key("a")
	d.waitScreen("add a root (a directory):")
	d.typeText(t.TempDir())
	d.key("esc")
	d.settle()
	if n := len(d.m.asks.roots.Roots()); n != before {
		t.Fatalf("%d roots after an abandoned prompt, want the %d of the start", n, before)
	}
	if s := d.screen(); strings.Contains(s, "added") {
		t.Fatalf("an abandoned root prompt added a root:\n%s", s)
	}
}

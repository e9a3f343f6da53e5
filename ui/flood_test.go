package ui

import (
	"testing"

	"github.com/mcpoke/mcpoke/ui/rows"
)

func TestFloodThroughSessionKeepsEveryCount(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	call := d.callTool(tc, "sleep")
	const n = 20_000
	go func() {
		for i := 1; i <= n; i++ {
			call.In.NotifyProgress(float64(i), n, "")
		}
		call.Reply(map[string]any{"content": []any{}})
	}()
	d.waitScreen("✓ completed", "progress 20000 updates")
	r := d.m.table.Selected()
	if r.ProgressOrNone().Count != n || r.Progress.Latest.Progress != n {
		t.Errorf("row saw %d updates, last %v", r.ProgressOrNone().Count, r.Progress.Latest.Progress)
	}
	if len(r.ProgressOrNone().History) > rows.ProgressHistory+rows.ProgressHistory/2 {
		t.Errorf("row keeps %d progress entries", len(r.ProgressOrNone().History))
	}
}

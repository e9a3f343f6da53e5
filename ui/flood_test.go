package ui

import (
	"testing"

	"github.com/mcpoke/mcpoke/session"
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
	// The row is read, not the screen, while the flood comes: drawing the
	// screen at each of 20,000 messages took the whole wait under -race
	// on a loaded machine.
	d.waitFor("the call completed after 20000 progress updates", func() bool {
		r := d.m.table.Selected()
		return r != nil && r.State == session.Completed && r.ProgressOrNone().Count == n
	})
	d.waitScreen("✓ completed", "progress 20000 updates")
	r := d.m.table.Selected()
	if r.ProgressOrNone().Count != n || r.Progress.Latest.Progress != n {
		t.Errorf("row saw %d updates, last %v", r.ProgressOrNone().Count, r.Progress.Latest.Progress)
	}
	if len(r.ProgressOrNone().History) > rows.ProgressHistory+rows.ProgressHistory/2 {
		t.Errorf("row keeps %d progress entries", len(r.ProgressOrNone().History))
	}
}

package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/session"
)

// d opens the selected call's timeline in the requests' place, and it
// follows the call live: progress, the cancel and the settle window,
// traffic after the cancel marked ignored, the server's late answer;
// then the settle window closes, and d shows the requests again.
func TestTimelineFollowsACancelledCallLive(t *testing.T) {
	d, tc := newTestModel(t, 120, 40)
	call := d.callTool(tc, "stubborn")
	d.key("d")
	d.waitScreen("TIMELINE #3 tools/call stubborn", "─ tools/call stubborn (id 3) ─", "in flight · no answer yet, now +0ms",
		"d/esc close")
	if strings.Contains(d.screen(), "REQUESTS") {
		t.Error("the requests still show beside the timeline")
	}

	if err := call.In.NotifyProgress(1, 2, "half"); err != nil {
		t.Fatal(err)
	}
	d.waitScreen(`◀─ progress 1/2 "half" ─`)
	tc.clock.Advance(1500 * time.Millisecond)
	d.waitScreen("now +1.50s")

	d.keyDone("c")
	d.waitScreen(`+1.50s │─ notifications/cancelled (id 3) "cancelled by user" ─`,
		"╌╌ after the cancel: traffic for request 3 is ignored", "settle window 1.00s: cancelling", "cancelling since +1.50s")
	if err := call.In.NotifyProgress(2, 2, ""); err != nil {
		t.Fatal(err)
	}
	call.Reply(map[string]any{"content": []any{}})
	d.waitScreen("│x─ progress 2/2 · ignored (cancel +0ms) ─", "│x─ result · ignored (cancel +0ms) ─")

	d.waitTimer(tc)
	tc.clock.Advance(time.Second)
	d.waitScreen("+2.50s└│   settled: cancelled", "cancelled at +1.50s · the server answered anyway, 0ms after the cancel")
	if r := d.m.table.Selected(); r.State != session.Cancelled {
		t.Errorf("the row is %v", r.State)
	}

	// 60 columns: the timeline takes the whole width, the tools go.
	d.send(tea.WindowSizeMsg{Width: 60, Height: 40})
	d.waitScreen("TIMELINE #3 tools/call stubborn", "cancelled at +1.50s")
	s := d.screen()
	if strings.Contains(s, "TOOLS") {
		t.Errorf("the tools show beside a 60-column timeline:\n%s", s)
	}
	for i, line := range strings.Split(s, "\n") {
		if w := ansi.StringWidth(line); w > 60 {
			t.Errorf("line %d is %d wide: %q", i+1, w, line)
		}
	}
	d.key("d")
	d.waitScreen("REQUESTS", "TOOLS")
}

// The timeline draws whichever row is selected: a new call selects its
// row, and the timeline follows; esc closes it.
func TestTimelineFollowsTheSelection(t *testing.T) {
	d, tc := newTestModel(t, 120, 40)
	first := d.callTool(tc, "sleep")
	first.Reply(map[string]any{"content": []any{}})
	d.waitScreen("3 completed")
	d.key("d")
	d.waitScreen("TIMELINE #3 tools/call sleep", "completed at +0ms")
	d.callTool(tc, "stubborn")
	d.waitScreen("TIMELINE #4 tools/call stubborn", "in flight")
	d.key("esc")
	d.waitScreen("REQUESTS")
	// w from the timeline shows the wire log, not the timeline still.
	d.key("d")
	d.waitScreen("TIMELINE #4")
	d.key("w")
	d.waitScreen("REQUESTS", "WIRE LOG")
}

package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The timeline of a call cancelled on the demo server, on the whole
// screen as the program draws it: while the settle window runs, once it
// closed, and on a 60-column terminal, where it takes the tools' place.
func TestFlowTimeline(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), false)
	f.waitScreen("TOOLS 9")
	// One step of an hour: no progress arrives while the test runs.
	f.callWith("3600", "1")
	f.waitScreen("tools/call sleep", "⠋ pending")
	clock.Advance(2 * time.Second)
	f.keys("c", "d")
	f.golden("cancelling", "▸ TIMELINE #3 tools/call sleep", `+2.00s │─ notifications/cancelled (id 3) "cancelled by user"`,
		"… watching, now", "cancelling since +2.00s")

	f.waitTimer()
	clock.Advance(time.Second)
	f.golden("cancelled", "+3.00s└│   settled: cancelled", "cancelled at +2.00s · no response, as the spec asks")

	f.tm.Send(tea.WindowSizeMsg{Width: 60, Height: 24})
	f.golden("cancelled-60", "▸ TIMELINE #3 tools/call sleep", "settled: cancelled", "d/esc close")
}

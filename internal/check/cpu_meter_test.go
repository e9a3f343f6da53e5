package check

import (
	"runtime"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/cpumeter"
	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// Check 10's windows read "from-to: rate", a busy one marked, in order.
func TestWindowsTextListsEachWindow(t *testing.T) {
	ms := time.Millisecond
	ws := []cpumeter.Window{{From: 0, To: 250 * ms, Rate: 0.96, Busy: true}, {From: 250 * ms, To: 500 * ms, Rate: 0.01}}
	if got, want := windowsText(ws), "0.00-0.25: 0.96 busy, 0.25-0.50: 0.01"; got != want {
		t.Errorf("windows %q; want %q", got, want)
	}
	if got := windowsText(nil); got != "" {
		t.Errorf("no windows %q; want nothing", got)
	}
}

// A server mcpoke did not start as a process cannot be metered, and
// that is a feature the run lacks, not a failure.
func TestNoMeterWithoutAProcess(t *testing.T) {
	r := &runner{conn: connected(t, func(b *transporttest.End) { serveMisbehaving(b, misbehaviour{}) })}
	skip, na := r.noMeter()
	want := "mcpoke did not start this server as a process, so there is no process to meter"
	if runtime.GOOS != "linux" {
		want = "the server's CPU time is read from /proc, which " + runtime.GOOS + " does not have"
	}
	if skip != want || !na {
		t.Errorf("noMeter %q, not applicable %v; want %q, true", skip, na, want)
	}
}

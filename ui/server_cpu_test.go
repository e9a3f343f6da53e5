package ui

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/cpumeter"
)

// The detail of a cancelled row shows the server CPU meter: while it
// watches, then its verdict (the meter stands in for /proc here, so that
// the screens are fixed).
func TestFlowCancelledRowShowsServerCPU(t *testing.T) {
	clock := newFakeClock()
	release := make(chan struct{})
	var metered []int
	f := startFlowWith(t, clock, demoConn(t, clock), true, func(o *Options) {
		o.cpuMeter = func(pid int) func() (cpumeter.AfterCancel, bool) {
			metered = append(metered, pid)
			return func() (cpumeter.AfterCancel, bool) {
				<-release
				return cpumeter.AfterCancel{CPU: 2950 * time.Millisecond, Watched: 3 * time.Second, Verdict: "burning", Rate: 0.98}, true
			}
		}
	})
	f.waitScreen("TOOLS 9")
	f.callWith("3600", "1")
	f.waitScreen("tools/call sleep", "⠋ pending")
	f.keys("c")
	f.golden("watching", "server CPU after cancel: watching for 3.0s after the cancel…")
	close(release)
	f.golden("verdict", "server CPU after cancel: still burning 0.98 CPU")
	if len(metered) != 1 {
		t.Errorf("metered %d times, want once for the one cancel", len(metered))
	}
}

// Against real processes: the meter reads a family from /proc and says
// the work went on (a busy loop) or stopped (a sleeper).
func TestServerCPUMeterReadsARealProcess(t *testing.T) {
	if _, err := cpumeter.New(os.Getpid()); err != nil {
		t.Skipf("no CPU meter here: %v", err)
	}
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Skipf("no sh: %v", err)
	}
	t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	idle := exec.Command("sleep", "30")
	if err := idle.Start(); err != nil {
		t.Skipf("no sleep: %v", err)
	}
	t.Cleanup(func() { idle.Process.Kill(); idle.Wait() })
	// On a loaded machine the busy loop may not get a whole core: it
	// must burn, and not be taken for quiet; the sleeper must be quiet.
	busyWatch, idleWatch := meterServerCPU(busy.Process.Pid), meterServerCPU(idle.Process.Pid)
	if busyWatch == nil || idleWatch == nil {
		t.Fatal("no meter for a child process")
	}
	if a, ok := busyWatch(); !ok || a.Verdict == "quiet" || a.CPU < 100*time.Millisecond {
		t.Errorf("busy loop: %q (%v), want it burning", cpuVerdictLine(a), ok)
	}
	if a, ok := idleWatch(); !ok || a.Verdict != "quiet" || !strings.HasPrefix(cpuVerdictLine(a), "quiet after ") {
		t.Errorf("sleeper: %q (%v), want quiet", cpuVerdictLine(a), ok)
	}
	if meterServerCPU(0) != nil {
		t.Error("a server mcpoke did not start (pid 0) got a meter")
	}
}

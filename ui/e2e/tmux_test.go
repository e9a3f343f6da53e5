// Package e2e drives the real mcpoke binary in tmux, as a person would:
// keys in, screen out.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// update is accepted so that go test ./ui/... -update, which writes the
// ui package's golden files, also runs here; this package has none.
var _ = flag.Bool("update", false, "update .golden files (none in this package)")

// requireTmuxEnv makes a missing tmux a failure instead of a skip (CI).
const requireTmuxEnv = "MCPOKE_REQUIRE_TMUX"

// screenDeadline bounds every wait for the screen.
const screenDeadline = 20 * time.Second

// stubbornSeconds is how long the stubborn call runs. The wait for its
// late answer starts after "cancelling" shows, so it must stay well under
// screenDeadline.
const stubbornSeconds = 6

// tmux runs the binary in its own tmux server, so nothing touches the
// user's sessions.
type tmux struct {
	t      *testing.T
	socket string
	bin    string
}

func (x *tmux) run(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// screen returns the pane's text.
func (x *tmux) screen() string {
	out, _ := x.run("capture-pane", "-p", "-t", "ui")
	return out
}

// keys sends keys one at a time: sent together, an escape or a prefix
// could merge with the next key in the terminal's parser.
func (x *tmux) keys(keys ...string) {
	x.t.Helper()
	for _, k := range keys {
		if out, err := x.run("send-keys", "-t", "ui", k); err != nil {
			x.t.Fatalf("send-keys %s: %v: %s", k, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFor polls the screen until it holds every one of subs.
func (x *tmux) waitFor(subs ...string) string {
	x.t.Helper()
	deadline := time.Now().Add(screenDeadline)
	var s string
	for time.Now().Before(deadline) {
		s = x.screen()
		all := true
		for _, sub := range subs {
			all = all && strings.Contains(s, sub)
		}
		if all {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	x.t.Fatalf("the screen never showed %q; it shows:\n%s", subs, s)
	return ""
}

// seconds reads the figure the first group of pattern matches on screen s.
func (x *tmux) seconds(s, pattern string) float64 {
	x.t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	if m == nil {
		x.t.Fatalf("the screen has no %s:\n%s", pattern, s)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		x.t.Fatal(err)
	}
	return f
}

// buildBinary builds mcpoke from the module root.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpoke")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/mcpoke/mcpoke")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startTmux opens the UI on the built-in demo server in a 120×35 pane.
func startTmux(t *testing.T, args ...string) *tmux {
	return startTmuxUntil(t, []string{"● ready", "TOOLS 9", "Try it: select sleep, press enter twice, then c"}, args...)
}

// startTmuxUntil opens the UI with args and waits until it shows ready.
func startTmuxUntil(t *testing.T, ready []string, args ...string) *tmux {
	x := startTmuxOn(t)
	x.open(args...)
	x.waitFor(ready...)
	return x
}

// startTmuxOn builds mcpoke and readies a tmux server of its own; open
// starts mcpoke in it. Without tmux it skips, unless requireTmuxEnv.
func startTmuxOn(t *testing.T) *tmux {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv(requireTmuxEnv) == "1" {
			t.Fatalf("tmux is not installed and %s=1", requireTmuxEnv)
		}
		t.Skipf("tmux is not installed (set %s=1 to make this a failure)", requireTmuxEnv)
	}
	return &tmux{t: t, socket: fmt.Sprintf("mcpoke-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), bin: buildBinary(t)}
}

// open runs mcpoke with args in a 120×35 pane.
func (x *tmux) open(args ...string) {
	x.t.Helper()
	if out, err := x.run(append([]string{"new-session", "-d", "-x", "120", "-y", "35", "-s", "ui", x.bin}, args...)...); err != nil {
		x.t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	x.t.Cleanup(func() { x.run("kill-server") })
}

func TestTmuxSleepCancel(t *testing.T) {
	x := startTmux(t)
	x.keys("Enter")
	x.waitFor("CALL sleep")
	x.keys("Enter")
	x.waitFor("sent tools/call sleep as request #3", "pending")
	time.Sleep(1500 * time.Millisecond)
	x.keys("c")
	x.waitFor("cancelling", `cancel requested for #3 tools/call sleep: "cancelled by user"`)
	s := x.waitFor("⊘ cancelled", "1 cancelled", "settled after")
	// ELAPSED is what the server was given: until the cancel was sent, not
	// until the settle window closed.
	elapsed := x.seconds(s, `call sleep\s+⊘ cancelled\s+(\d+\.\d)s`)
	sent := x.seconds(s, `· sent \+(\d+\.\d)s`)
	settled := x.seconds(s, `settled after (\d+\.\d)s`)
	if elapsed != sent {
		t.Errorf("ELAPSED %.1fs, want the cancel's send time %.1fs:\n%s", elapsed, sent, s)
	}
	if elapsed < 1.4 || settled < 0.9 {
		t.Errorf("ELAPSED %.1fs (want about 1.5s), settled after %.1fs (want about 1s):\n%s", elapsed, settled, s)
	}

	x.keys("q")
	deadline := time.Now().Add(screenDeadline)
	for {
		if _, err := x.run("has-session", "-t", "ui"); err != nil {
			break // mcpoke exited and took the pane with it
		}
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit; the screen shows:\n%s", x.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestTmuxStubbornLateBadge(t *testing.T) {
	x := startTmux(t)
	x.keys("j", "Enter")
	x.waitFor("CALL stubborn")
	// It answers after stubbornSeconds, cancelled or not: "c" must land
	// before that, even on a loaded machine.
	x.keys("C-u", fmt.Sprint(stubbornSeconds), "Enter")
	x.waitFor("sent tools/call stubborn as request #3")
	x.keys("c")
	x.waitFor("cancelling")
	s := x.waitFor("late response ignored (+")
	if !strings.Contains(s, "⊘ cancelled") {
		t.Errorf("the late response changed the state:\n%s", s)
	}
	x.keys("q")
}

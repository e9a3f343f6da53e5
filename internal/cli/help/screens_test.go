package help

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDocScreens draws again every screen of the TUI that the README and
// the help topics show as real: a fenced block whose info string is
// "tui" followed by the steps that lead to it, separated by commas. A
// step is a key as tmux send-keys names it (Down, Enter, c), or
// "wait:TEXT", which waits until the screen shows TEXT. mcpoke runs on
// the demo server in a 120×35 tmux pane, and the pane, normalized as
// TestDocExamples normalizes output, must be the block.
func TestDocScreens(t *testing.T) {
	if testing.Short() {
		t.Skip("drawing the documentation's screens takes seconds; -short skips it")
	}
	pages := docPages(t)
	n := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			steps, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "```tui ")
			if !ok {
				continue
			}
			start := i + 1
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			}
			want := lines[start:i]
			n++
			t.Run(fmt.Sprintf("%s:%d", strings.TrimSuffix(filepath.Base(p), ".md"), start), func(t *testing.T) {
				drawDocScreen(t, strings.Split(steps, ","), want)
			})
		}
	}
	if n == 0 {
		t.Fatal("no tui block found: the README's tour has one")
	}
}

// drawDocScreen runs the steps in tmux and compares the screen with want.
func drawDocScreen(t *testing.T, steps, want []string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("MCPOKE_REQUIRE_TMUX") == "1" {
			t.Fatal("MCPOKE_REQUIRE_TMUX=1 but tmux is not installed")
		}
		t.Skip("tmux is not installed (set MCPOKE_REQUIRE_TMUX=1 to make this a failure)")
	}
	home := t.TempDir()
	socket := fmt.Sprintf("mcpoke-doc-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) (string, error) {
		cmd := exec.Command("tmux", append([]string{"-L", socket}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := tmux("new-session", "-d", "-x", "120", "-y", "35", "-s", "ui", "mcpoke"); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	defer func() { _, _ = tmux("kill-server") }()
	screen := func() string {
		out, _ := tmux("capture-pane", "-p", "-t", "ui")
		return out
	}
	waitFor := func(text string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(screen(), text) {
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q within 20s; it shows:\n%s", text, screen())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("● ready")
	for _, step := range steps {
		step = strings.TrimSpace(step)
		if text, ok := strings.CutPrefix(step, "wait:"); ok {
			waitFor(text)
			continue
		}
		if out, err := tmux("send-keys", "-t", "ui", step); err != nil {
			t.Fatalf("send-keys %s: %v: %s", step, err, out)
		}
		time.Sleep(100 * time.Millisecond) // one key at a time, as a person types
	}
	got := screen()
	if !docOutputMatches(want, got, false) {
		t.Errorf("the page shows:\n%s\nmcpoke draws now (normalized):\n%s",
			strings.Join(normalizeLines(want, false), "\n"), strings.Join(normalizeLines(splitOutput(got), false), "\n"))
	}
}

package procmeter

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestParseStatNameWithParensAndSpaces(t *testing.T) {
	line := "4242 (a) b (c)) S 1 4242 4240 0 -1 4194560 100 0 0 0 37 12 0 0 20 0 1 0 100 0 0\n"
	s, ok := parseStat([]byte(line))
	if !ok || s.session != 4240 || s.utime != 37 || s.stime != 12 {
		t.Errorf("parseStat = %+v, %v; want session 4240, utime 37, stime 12", s, ok)
	}
	for _, bad := range []string{"", "1 (x", "1 (x) S 1 2", "1 (x) S 1 2 x 0 -1 0 0 0 0 0 1 2"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}

// TestSessionCountsABusyChild starts a shell in its own session whose
// child spins, and reads the family's CPU growing; an idle family's does
// not.
func TestSessionCountsABusyChild(t *testing.T) {
	if !Supported() {
		t.Skip("no /proc here")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	start := func(script string) *exec.Cmd {
		cmd := exec.Command("sh", "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		})
		return cmd
	}
	busy := start("(while :; do :; done) & wait")
	idle := start("sleep 30 & wait")
	measure := func(cmd *exec.Cmd) (time.Duration, int) {
		r0, err := Session(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
		r1, err := Session(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		return r1.Sub(r0), r1.Processes
	}
	b, bn := measure(busy)
	i, in := measure(idle)
	if bn < 2 || in < 2 {
		t.Errorf("found %d and %d processes, want the shell and its child in each", bn, in)
	}
	// On a loaded machine the spinner gets less than a core; 50ms of
	// 400 is still far above an idle family's.
	if b < 50*time.Millisecond || i > 20*time.Millisecond {
		t.Errorf("busy family burnt %v, idle %v in 400ms", b, i)
	}
	if _, err := Session(os.Getpid() + 1<<22); err == nil {
		t.Error("Session of a session that does not exist did not fail")
	}
}

package transport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// startTermFamily starts a termfamily server and returns it with the pids
// of its child in the group and of its detached grandchild.
func startTermFamily(t *testing.T, marks string, grace time.Duration, env ...string) (s *Stdio, child, detached int) {
	t.Helper()
	s = startFake(t, "termfamily", StdioOptions{
		CloseGrace: grace,
		Env:        append([]string{fakeMarksEnv + "=" + marks}, env...),
	})
	for {
		m, err := recv(t, s)
		if err != nil {
			t.Fatalf("termfamily server ended before it reported its family: %v", err)
		}
		if m.Kind != wire.KindFrame {
			continue
		}
		var v struct{ Pids []int }
		if err := json.Unmarshal(m.Data, &v); err != nil || len(v.Pids) != 2 {
			t.Fatalf("bad pids frame %q: %v", m.Data, err)
		}
		child, detached = v.Pids[0], v.Pids[1]
		break
	}
	// The test means something only if the grandchild really left: a
	// session of its own, and (its parent gone) adopted by this process,
	// the child subreaper, rather than by init.
	p, ok := readProc(detached)
	if !ok || p.sid != detached || p.ppid != os.Getpid() {
		t.Fatalf("detached grandchild %d: %+v (alive %v); want its own session and this test (pid %d) as its parent",
			detached, p, ok, os.Getpid())
	}
	return s, child, detached
}

// Close asks the whole family with SIGTERM before any SIGKILL: the child in
// the server's group and the grandchild that left it. Each leaves a
// marker when SIGTERM reaches it; the server waits for both markers before
// it goes, so a family that got only SIGKILL leaves no marker.
func TestStdioCloseTermsFamilyBeforeKill(t *testing.T) {
	marks := t.TempDir()
	// The grace is long enough for the SIGTERM handlers to run before
	// Close's SIGKILL even on a loaded machine.
	s, child, detached := startTermFamily(t, marks, time.Second)
	closeOrHang(t, s)
	waitGone(t, "server", s.Pid())
	waitGone(t, "server's child", child)
	// Adopted by this process when its parent died, so Close reaps it.
	waitESRCH(t, "server's detached grandchild (adopted, so reaped by Close)", detached)
	for _, role := range []string{"child", "detached"} {
		if _, err := os.Stat(filepath.Join(marks, role)); err != nil {
			t.Errorf("the server's %s got no SIGTERM before SIGKILL (no marker: %v)", role, err)
		}
	}
	if e := exitOf(t, s); e.Code != 0 || e.Signal != "" {
		t.Errorf("server ended with %v, want status 0 after it saw both markers", e)
	}
}

// A child that left the server's session and dropped the tag is still
// family while its parent, the server, lives: Close asks it with SIGTERM
// too, and it is gone when Close returns.
func TestStdioCloseTermsChildOfLiveServer(t *testing.T) {
	marks := t.TempDir()
	s := startFake(t, "termkid", StdioOptions{
		CloseGrace: time.Second,
		Env:        []string{fakeMarksEnv + "=" + marks},
	})
	child := pidFrame(t, s)
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	if p, ok := readProc(child); !ok || p.sid != child || p.ppid != s.Pid() || hasTag(child, s.tag) {
		t.Fatalf("child %d: %+v (alive %v, tagged %v); the test needs it in a session of its own, untagged, the server its parent",
			child, p, ok, hasTag(child, s.tag))
	}
	closeOrHang(t, s)
	waitGone(t, "server's child that left its session", child)
	if _, err := os.Stat(filepath.Join(marks, "detached")); err != nil {
		t.Errorf("the server's untagged child in a session of its own got no SIGTERM (no marker: %v)", err)
	}
}

// What outlives the server gets SIGTERM and up to CloseGrace to go before
// SIGKILL: the child takes a moment to leave its marker, which an
// immediate SIGKILL would prevent. The grace is longer than the hang guard,
// so waiting it out in full fails the test too.
func TestStdioLeftoverGetsGraceAfterTerm(t *testing.T) {
	marks := t.TempDir()
	s := startFake(t, "leftover", StdioOptions{
		CloseGrace: time.Hour,
		Env:        []string{fakeMarksEnv + "=" + marks, fakeTermDelayEnv + "=200ms"},
	})
	child := pidFrame(t, s)
	closeOrHang(t, s)
	if e := exitOf(t, s); e.Code != 0 || e.Signal != "" {
		t.Errorf("server ended with %v, want status 0 at stdin EOF", e)
	}
	waitGone(t, "server's leftover child", child)
	if _, err := os.Stat(filepath.Join(marks, "child")); err != nil {
		t.Errorf("the leftover child had no time to go after SIGTERM (no marker: %v)", err)
	}
}

// A grandchild that left the session and dropped its environment, tag
// included, is out of reach of its server's Close, but as mcpoke's adopted
// child it is ended by CloseAll.
func TestCloseAllEndsBareAdoptedChild(t *testing.T) {
	t.Cleanup(func() {
		live.Lock()
		live.quitting = false
		live.Unlock()
	})
	s, child, detached := startTermFamily(t, t.TempDir(), 100*time.Millisecond, fakeBareEnv+"=1")
	if hasTag(detached, s.tag) {
		t.Fatalf("bare grandchild %d still carries the tag %s", detached, s.tag)
	}
	within(t, "CloseAll returned", CloseAll)
	waitGone(t, "server", s.Pid())
	waitGone(t, "server's child", child)
	waitESRCH(t, "bare adopted grandchild (killed and reaped)", detached)
}

//go:build unix

package transport

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Close sends SIGTERM to the server's process group before any SIGKILL.
// The server's child, in its group, leaves a marker when SIGTERM reaches
// it; the server waits for that marker before it exits, so a child that
// got only SIGKILL leaves none.
//
// Outside Linux the group signal is the only way SIGTERM reaches the
// child, and this test fails without it. On Linux the family walk
// (familyOf) also signals each member of the group, and finds every one:
// a group member is in the server's session and no older than the server.
// Only a process forked between the walk's reading of /proc and its
// signals escapes the walk but not the kernel's group signal, a race no
// deterministic test can set up; so on Linux this test cannot tell a
// missing group SIGTERM from a present one.
func TestStdioCloseTermsGroupBeforeKill(t *testing.T) {
	marks := t.TempDir()
	// The grace is long enough for the SIGTERM handlers to run before
	// Close's SIGKILL even on a loaded machine.
	s := startFake(t, "termgroup", StdioOptions{
		CloseGrace: time.Second,
		Env:        []string{fakeMarksEnv + "=" + marks},
	})
	child := pidFrame(t, s)
	if pgid, err := unix.Getpgid(child); err != nil || pgid != s.Pid() {
		t.Fatalf("child %d is in group %d (%v); the test needs it in the server's group %d", child, pgid, err, s.Pid())
	}
	closeOrHang(t, s)
	waitGone(t, "server", s.Pid())
	waitGone(t, "server's child", child)
	if _, err := os.Stat(filepath.Join(marks, "child")); err != nil {
		t.Errorf("the server's child got no SIGTERM before SIGKILL (no marker: %v)", err)
	}
	if e := exitOf(t, s); e.Code != 0 || e.Signal != "" {
		t.Errorf("server ended with %v, want status 0 after it saw the child's marker", e)
	}
}

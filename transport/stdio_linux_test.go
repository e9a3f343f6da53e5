package transport

import (
	"os"
	"syscall"
	"testing"
)

// No handler runs when mcpoke is SIGKILLed: Pdeathsig must do the work.
func TestPdeathsig(t *testing.T) {
	parent, server, child := startParent(t)
	// Out of Pdeathsig's reach: see the caveat in stdio_linux.go.
	defer syscall.Kill(child, syscall.SIGKILL)
	parent.Process.Signal(syscall.SIGKILL)
	within(t, "the SIGKILLed mcpoke stand-in was reaped", func() { parent.Wait() })
	waitGone(t, "server", server)
}

// A start that fails closes the pipes it opened: a TUI whose user retries
// a mistyped command must not run out of files.
func TestStdioFailedStartLeaksNoFiles(t *testing.T) {
	open := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(fds)
	}
	before := open()
	for range 10 {
		if _, err := StartStdio(StdioOptions{Command: "/nonexistent/mcpoke-no-such-server"}); err == nil {
			t.Fatal("a missing command started")
		}
	}
	if after := open(); after > before {
		t.Errorf("%d files open after 10 failed starts, %d before", after, before)
	}
}

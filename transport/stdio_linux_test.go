package transport

import (
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

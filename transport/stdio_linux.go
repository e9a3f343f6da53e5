package transport

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// setPdeathsig makes the kernel SIGKILL the server if mcpoke dies without
// running CloseAll or KillAll (SIGKILL, crash). Caveats: the signal fires when the OS
// thread that forked the server exits, not the process; the Go runtime
// only ends a thread when a goroutine exits while locked to it, which
// mcpoke does not do, so we accept that rather than pin a thread with
// runtime.LockOSThread. It also reaches only the server, not its children.
func setPdeathsig(a *syscall.SysProcAttr) {
	a.Pdeathsig = syscall.SIGKILL
}

// waitExited blocks until the process exits but leaves it a zombie: until
// it is reaped its pid, and so its process group id, cannot be reused, so
// signalling the group cannot hit an unrelated process.
func waitExited(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			return true
		}
		if err != unix.EINTR {
			return false
		}
	}
}

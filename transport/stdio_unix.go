//go:build unix

package transport

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr starts the server in a session of its own, which is also a
// process group of its own. A new session has no controlling terminal, so
// the server cannot open /dev/tty to draw on the user's screen or push
// keystrokes into its input (TIOCSTI); and Close can signal the group
// together with everything the server spawned.
func sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true}
	setPdeathsig(a)
	return a
}

// signalGroup signals the process group led by pgid. ESRCH means nobody is
// left, which is what we want anyway.
func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// signalProc signals one process; it may be gone already.
func signalProc(pid int, sig syscall.Signal) { syscall.Kill(pid, sig) }

// describeExit turns a wait status into an exit code and a signal name.
func describeExit(ps *os.ProcessState) (code int, signal string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

// childSignal names the signal N of an exit status 128+N, the status a
// shell gives when the command it ran was killed by N; "" for any other
// status.
func childSignal(code int) string {
	if code <= 128 || code > 128+64 {
		return ""
	}
	return unix.SignalName(syscall.Signal(code - 128))
}

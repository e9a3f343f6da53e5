//go:build unix

package transport

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the server in a process group of its own, so that Close
// can signal it together with everything it spawned.
func sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
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

// describeExit turns a wait status into an exit code and a signal name.
func describeExit(ps *os.ProcessState) (code int, signal string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

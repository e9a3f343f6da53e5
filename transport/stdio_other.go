//go:build !unix

package transport

import (
	"os"
	"syscall"
)

// Without process groups the server alone is stopped; closing its stdin
// is the polite request, so only the final kill does anything.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	p.Kill()
	return nil
}

func signalProc(pid int, sig syscall.Signal) {
	if sig != syscall.SIGKILL {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func describeExit(ps *os.ProcessState) (code int, signal string) {
	return ps.ExitCode(), ""
}

// childSignal: shells elsewhere do not report signals as 128+N.
func childSignal(int) string { return "" }

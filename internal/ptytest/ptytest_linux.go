// Package ptytest opens pseudo-terminals for tests that need a real
// terminal: CI runs without one.
package ptytest

import (
	"os"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Open opens a pseudo-terminal pair, or skips the test saying what it
// could not check without one (why). The test closes both ends.
func Open(t testing.TB, why string) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal (%v): %s", err, why)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0)
	}
	var s *os.File
	if err == nil {
		s, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal (%v): %s", err, why)
	}
	return m, s
}

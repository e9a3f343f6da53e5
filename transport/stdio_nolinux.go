//go:build !linux

package transport

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}

// waitExited cannot wait without reaping here: the caller reaps with Wait
// and then signals the group, with a small window for pid reuse.
func waitExited(int) bool { return false }

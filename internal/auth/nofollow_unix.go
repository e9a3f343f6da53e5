//go:build unix

package auth

import "syscall"

// noFollow makes open fail on a symbolic link in the last element of the
// path, closing the gap between refuseLink and the open.
const noFollow = syscall.O_NOFOLLOW

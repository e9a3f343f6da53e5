//go:build unix

package savefile

import "syscall"

// noFollow makes open fail on a symbolic link in the last element of the
// path. With O_CREATE|O_EXCL it is already refused; this says so twice.
const noFollow = syscall.O_NOFOLLOW

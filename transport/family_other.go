//go:build !linux

package transport

// Without /proc and a child subreaper a server's family is its process
// group: descendants that leave it are out of reach.

type proc struct {
	pid, ppid int
	zombie    bool
}

func becomeSubreaper() {}

func startTime(int) uint64 { return 0 }

func familyOf(int, uint64, string) []proc { return nil }

func adoptedChildren(map[int]bool) []proc { return nil }

func reapAdopted(map[int]bool) {}

package transport

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A server's family is every process it spawned, wherever that process
// went: its process group, its session (a process may make a new group in
// it), every process descended from one of those while its parent lives,
// and every process that carries the server's tag in its environment, which
// a descendant keeps through setsid and double forks. mcpoke is a child
// subreaper, so a descendant whose parent died is re-parented to mcpoke
// rather than to init, and can be reaped here once it is killed.

var subreaperOnce sync.Once

// becomeSubreaper makes mcpoke the child subreaper of everything it
// starts, once, before the first server.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		// Best effort: without it, detached descendants are still found
		// by their tag; only their zombies go to init.
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
}

// proc is one line of /proc/<pid>/stat, the fields the family needs.
type proc struct {
	pid, ppid, pgrp, sid int
	start                uint64 // in clock ticks since boot
	zombie               bool
}

// procStatBuffer holds a whole /proc/<pid>/stat line (about 300 bytes,
// its command name at most 64).
const procStatBuffer = 1024

// readProcFile reads a small /proc file into buf with plain system calls:
// open, read to the end, close. Each Close of a server scans /proc twice,
// a stat file per process on the machine; os.ReadFile costs two more
// calls per file (fstat, and an epoll registration that fails). A file
// larger than buf is read with os.ReadFile.
func readProcFile(path string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return nil, err
		}
		if m == 0 {
			syscall.Close(fd)
			return buf[:n], nil
		}
		n += m
	}
	syscall.Close(fd)
	return os.ReadFile(path)
}

// statFields fills f with the first len(f) space-separated fields of
// b, without allocating; false when b has fewer.
func statFields(b []byte, f [][]byte) bool {
	n := 0
	for j := 0; n < len(f); n++ {
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		if j == len(b) {
			return false
		}
		start := j
		for j < len(b) && !isSpace(b[j]) {
			j++
		}
		f[n] = b[start:j]
	}
	return true
}

// readProc reads /proc/<pid>/stat; ok is false when the process is gone.
func readProc(pid int) (p proc, ok bool) {
	var buf [procStatBuffer]byte
	stat, err := readProcFile("/proc/"+strconv.Itoa(pid)+"/stat", buf[:])
	if err != nil {
		return proc{}, false
	}
	// The command name may hold spaces and parentheses: fields start
	// after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return proc{}, false
	}
	// f[0] is field 3 (state); start time is field 22.
	var f [20][]byte
	if !statFields(stat[i+1:], f[:]) {
		return proc{}, false
	}
	p.pid = pid
	p.zombie = f[0][0] == 'Z' || f[0][0] == 'X'
	p.ppid, _ = strconv.Atoi(string(f[1]))
	p.pgrp, _ = strconv.Atoi(string(f[2]))
	p.sid, _ = strconv.Atoi(string(f[3]))
	p.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return p, true
}

// listProcs returns every process the system shows.
func listProcs() []proc {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	procs := make([]proc, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			procs = append(procs, p)
		}
	}
	return procs
}

// hasTag reports whether pid's environment holds the entry tag.
func hasTag(pid int, tag string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return bytes.Contains(append([]byte{0}, env...), []byte("\x00"+tag+"\x00"))
}

// startTime is when pid started, 0 if unknown.
func startTime(pid int) uint64 {
	p, _ := readProc(pid)
	return p.start
}

// familyOf returns the live processes of the family of the server led by
// leader, started at start with tag in its environment, leaving out the
// leader itself and mcpoke.
func familyOf(leader int, start uint64, tag string) []proc {
	self := os.Getpid()
	procs := listProcs()
	in := map[int]bool{leader: true}
	for _, p := range procs {
		switch {
		case p.pid == self || p.start < start:
			// Older than the server: not its descendant, and its
			// environment is not worth reading.
		case p.sid == leader || p.pgrp == leader || (!p.zombie && hasTag(p.pid, tag)):
			in[p.pid] = true
		}
	}
	// Children of members are members, to any depth.
	for grew := true; grew; {
		grew = false
		for _, p := range procs {
			if !in[p.pid] && in[p.ppid] && p.pid != self && p.start >= start {
				in[p.pid], grew = true, true
			}
		}
	}
	var fam []proc
	for _, p := range procs {
		if in[p.pid] && p.pid != leader && !p.zombie {
			fam = append(fam, p)
		}
	}
	return fam
}

// adoptedChildren returns mcpoke's children that are not in leaders: with
// mcpoke a subreaper and transport the only part of it that starts
// processes, each is a descendant of a server that detached and whose
// parent died.
func adoptedChildren(leaders map[int]bool) []proc {
	self := os.Getpid()
	var out []proc
	for _, p := range listProcs() {
		if p.ppid == self && !leaders[p.pid] {
			out = append(out, p)
		}
	}
	return out
}

// reapDeadline bounds the wait for killed adopted children to become
// reapable; one that takes longer stays a zombie until mcpoke exits.
const reapDeadline = time.Second

// reapAdopted reaps the given children of mcpoke once they have died.
func reapAdopted(pids map[int]bool) {
	deadline := time.Now().Add(reapDeadline)
	for len(pids) > 0 {
		for pid := range pids {
			var ws unix.WaitStatus
			got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			if got == pid || err == syscall.ECHILD {
				delete(pids, pid)
			}
		}
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

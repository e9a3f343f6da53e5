// Package cpumeter reads how much CPU time a process and its whole
// family (its descendants and its process group) have used, from Linux's
// /proc, so that mcpoke can see whether a server stops working after a
// cancel. Elsewhere it reports ErrUnsupported.
package cpumeter

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// ErrUnsupported means there is no /proc to read (not Linux).
var ErrUnsupported = errors.New("CPU time is read from /proc, which this system does not have")

// ticksPerSecond is USER_HZ, the unit of /proc/PID/stat's times: 100 on
// every Linux architecture Go supports.
const ticksPerSecond = 100

// Resolution is the smallest CPU time the meter can tell apart.
const Resolution = time.Second / ticksPerSecond

// procDir is where the process table is read; tests point it elsewhere.
var procDir = "/proc"

// Sample is the CPU time of a process family at one moment.
type Sample struct {
	At time.Time `json:"-"`
	// CPU is user plus system time of every process in the family, and
	// of the children they have waited for.
	CPU time.Duration `json:"cpuMs"`
	// Procs is how many processes the family had.
	Procs int `json:"procs"`
}

// Meter samples the family of one process.
type Meter struct {
	root int
}

// New returns a meter for the family of process root, or why there can
// be none.
func New(root int) (*Meter, error) {
	if root <= 0 {
		return nil, fmt.Errorf("no process to meter")
	}
	if _, err := os.Stat(procDir + "/self/stat"); err != nil {
		return nil, ErrUnsupported
	}
	if _, err := readStat(root); err != nil {
		return nil, fmt.Errorf("process %d: %w", root, err)
	}
	return &Meter{root: root}, nil
}

// Sample reads the family's CPU time now.
func (m *Meter) Sample() (Sample, error) {
	at := time.Now()
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return Sample{}, err
	}
	stats := map[int]stat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil {
			stats[pid] = st
		}
	}
	if _, ok := stats[m.root]; !ok {
		return Sample{}, fmt.Errorf("process %d has exited", m.root)
	}
	var ticks uint64
	n := 0
	for pid, st := range stats {
		if m.inFamily(pid, stats) {
			ticks += st.ticks
			n++
		}
	}
	return Sample{At: at, CPU: time.Duration(ticks) * Resolution, Procs: n}, nil
}

// inFamily: pid is root, in root's process group (mcpoke starts a server
// as a group's leader, and a daemonised child keeps the group), or
// descends from root.
func (m *Meter) inFamily(pid int, stats map[int]stat) bool {
	for hops := 0; hops < 64; hops++ {
		st, ok := stats[pid]
		if !ok {
			return false
		}
		if pid == m.root || st.pgrp == m.root {
			return true
		}
		if st.ppid <= 1 {
			return false
		}
		pid = st.ppid
	}
	return false
}

// stat is what the meter needs of /proc/PID/stat.
type stat struct {
	ppid, pgrp int
	ticks      uint64 // utime + stime + cutime + cstime
}

// readStat reads /proc/PID/stat. The command name, in parentheses, may
// hold spaces and parentheses itself: the fields start after the last
// ')'.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile(procDir + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	return parseStat(b)
}

func parseStat(b []byte) (stat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("no command name in stat")
	}
	// Fields from 3 (state) on; ppid is 4, pgrp 5, utime 14 … cstime 17.
	f := bytes.Fields(b[i+1:])
	if len(f) < 15 {
		return stat{}, fmt.Errorf("stat has %d fields after the name; want at least 15", len(f))
	}
	num := func(k int) (uint64, error) { return strconv.ParseUint(string(f[k-3]), 10, 64) }
	var st stat
	ppid, err := num(4)
	if err != nil {
		return stat{}, err
	}
	pgrp, err := num(5)
	if err != nil {
		return stat{}, err
	}
	st.ppid, st.pgrp = int(ppid), int(pgrp)
	for k := 14; k <= 17; k++ {
		v, err := strconv.ParseUint(string(f[k-3]), 10, 64)
		if err != nil {
			// cutime and cstime are signed; a negative one never happens.
			continue
		}
		st.ticks += v
	}
	return st, nil
}

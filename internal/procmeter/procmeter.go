// Package procmeter reads how much CPU a family of processes has burnt:
// every process of one session (setsid), as mcpoke starts its stdio
// servers, so that a server's helpers and children count with it. It
// reads /proc, so it works on Linux only; elsewhere Supported is false.
//
// A process that exited between two readings takes its time with it (its
// parent's cutime counts it only once reaped): the meter sees the living.
package procmeter

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// ticksPerSecond is USER_HZ, the unit of utime and stime in
// /proc/PID/stat: 100 on every Linux architecture Go runs on (the kernel
// exports it as a fixed ABI value, whatever CONFIG_HZ is).
const ticksPerSecond = 100

// Supported says whether this system has the /proc the meter reads.
func Supported() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// Reading is the CPU of a family at one moment.
type Reading struct {
	At time.Time
	// CPU is user plus system time of the living processes of the
	// family, at a resolution of 10ms.
	CPU time.Duration
	// Processes is how many were found.
	Processes int
}

// Sub is the CPU burnt between an earlier reading and r; never negative
// (a process that exited takes its time with it).
func (r Reading) Sub(earlier Reading) time.Duration { return max(r.CPU-earlier.CPU, 0) }

// Share is the CPU burnt between earlier and r as a share of one core
// over the wall time between them: 1.0 is one core busy.
func (r Reading) Share(earlier Reading) float64 {
	wall := r.At.Sub(earlier.At)
	if wall <= 0 {
		return 0
	}
	return float64(r.Sub(earlier)) / float64(wall)
}

// ErrUnsupported: there is no /proc to read (not Linux).
var ErrUnsupported = errors.New("procmeter: CPU of a process family is read from /proc, which only Linux has")

// Session reads the CPU of every process whose session id is sid: for a
// server started with setsid, its pid. It fails when none is found.
func Session(sid int) (Reading, error) {
	if !Supported() {
		return Reading{}, ErrUnsupported
	}
	at := time.Now()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return Reading{}, fmt.Errorf("procmeter: %w", err)
	}
	var r Reading
	var ticks uint64
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || !d.IsDir() {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // it exited while we looked
		}
		s, ok := parseStat(st)
		if !ok || (s.session != sid && pid != sid) {
			continue
		}
		r.Processes++
		ticks += s.utime + s.stime
	}
	if r.Processes == 0 {
		return Reading{}, fmt.Errorf("procmeter: no process in session %d (the server exited?)", sid)
	}
	r.At = at
	r.CPU = time.Duration(ticks) * time.Second / ticksPerSecond
	return r, nil
}

// stat is what the meter takes from /proc/PID/stat.
type stat struct {
	session      int
	utime, stime uint64
}

// parseStat reads /proc/PID/stat. The command name, field 2, is in
// parentheses and may hold spaces and parentheses itself: the fields
// are counted from the last ')'.
func parseStat(b []byte) (stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	// After ")": state(3) ppid(4) pgrp(5) session(6) tty(7) tpgid(8)
	// flags(9) minflt(10) cminflt(11) majflt(12) cmajflt(13) utime(14)
	// stime(15).
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return stat{}, false
	}
	sid, err1 := strconv.Atoi(string(f[3]))
	ut, err2 := strconv.ParseUint(string(f[11]), 10, 64)
	st, err3 := strconv.ParseUint(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return stat{}, false
	}
	return stat{session: sid, utime: ut, stime: st}, true
}

package transport

import (
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// readProc reads this process's own stat line right: its parent, group,
// session and a start time, as the kernel gives them.
func TestReadProcReadsOwnStat(t *testing.T) {
	p, ok := readProc(os.Getpid())
	sid, _ := unix.Getsid(0)
	if !ok || p.pid != os.Getpid() || p.ppid != os.Getppid() || p.pgrp != syscall.Getpgrp() || p.sid != sid || p.start == 0 || p.zombie {
		t.Fatalf("readProc(self) = %+v, %v", p, ok)
	}
	if _, ok := readProc(1 << 30); ok {
		t.Fatal("readProc of no process said ok")
	}
}

// statFields splits on any run of spaces and says when a line is short.
func TestStatFields(t *testing.T) {
	var f [3][]byte
	if !statFields([]byte(" S  12 34\n"), f[:]) || string(f[0]) != "S" || string(f[1]) != "12" || string(f[2]) != "34" {
		t.Fatalf("fields %q", f)
	}
	if statFields([]byte(" S 12 "), f[:]) {
		t.Fatal("two fields filled three")
	}
}

// BenchmarkFamilyScan is one /proc scan for a server's family; Close makes
// two after the server exits, and they were a tenth of `mcpoke tools`.
func BenchmarkFamilyScan(b *testing.B) {
	start := startTime(os.Getpid())
	b.ReportAllocs()
	for b.Loop() {
		familyOf(os.Getpid()+1<<22, start, "MCPOKE_BENCH_NO_SUCH_TAG=1")
	}
}

package cpumeter

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestParseStatReadsPastAHostileName(t *testing.T) {
	// The name holds spaces and a ") " that would shift the fields.
	line := []byte("4242 (a) b (c) 5 6) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 1 0 100 0 0")
	st, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != 17 || st.pgrp != 4242 || st.ticks != 250+50+7+3 {
		t.Errorf("parsed %+v; want ppid 17, pgrp 4242, 310 ticks", st)
	}
	for _, bad := range []string{"", "1 (x", "1 (x) S 1 2", "1 (x) S a b c d e f g h i j k l m n"} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func samples(at time.Time, every time.Duration, cpu ...time.Duration) []Sample {
	out := make([]Sample, len(cpu))
	for i, c := range cpu {
		out[i] = Sample{At: at.Add(time.Duration(i) * every), CPU: c, Procs: 1}
	}
	return out
}

func TestJudge(t *testing.T) {
	at := time.Unix(1000, 0)
	ms := time.Millisecond
	// Busy at one core for 500 ms, then idle: quiet after 0.5 s.
	stops := samples(at, 250*ms, 0, 250*ms, 500*ms, 500*ms, 500*ms, 500*ms, 500*ms)
	v := Judge(stops, at, 250*ms, 0)
	if !v.Quiet || v.Burning || v.QuietAfter != 500*ms || v.CPUAfter != 500*ms {
		t.Errorf("stops: %+v", v)
	}
	// Half a core to the end: burning.
	goesOn := samples(at, 250*ms, 0, 125*ms, 250*ms, 375*ms, 500*ms, 625*ms)
	v = Judge(goesOn, at, 250*ms, 0)
	if !v.Burning || v.Quiet || v.Rate < 0.49 || v.Rate > 0.51 {
		t.Errorf("goes on: %+v", v)
	}
	// One tick of noise in a window is not busy; above an idle baseline
	// of 0.3 CPU, 0.35 is not busy either.
	noisy := samples(at, 250*ms, 0, 10*ms, 10*ms, 20*ms, 20*ms)
	if v = Judge(noisy, at, 250*ms, 0); !v.Quiet {
		t.Errorf("noise: %+v", v)
	}
	busyIdle := samples(at, 250*ms, 0, 88*ms, 175*ms, 263*ms, 350*ms)
	if v = Judge(busyIdle, at, 250*ms, 0.3); !v.Quiet {
		t.Errorf("a busy baseline: %+v", v)
	}
	// Alternating: neither verdict.
	flip := samples(at, 250*ms, 0, 250*ms, 250*ms, 500*ms, 500*ms, 750*ms)
	if v = Judge(flip, at, 250*ms, 0); v.Quiet || v.Burning {
		t.Errorf("alternating: %+v", v)
	}
	// Too few samples after the moment: no verdict.
	if v = Judge(samples(at, 250*ms, 0, 0), at, 250*ms, 0); v.Quiet || v.Burning {
		t.Errorf("too few: %+v", v)
	}
}

// The meter sees a child of the process it meters burn CPU.
func TestMeterSeesTheFamily(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, err := New(os.Getpid()); err == nil {
			t.Fatal("a meter without /proc")
		}
		t.Skip("the meter reads /proc: Linux only")
	}
	if _, err := New(0); err == nil {
		t.Error("a meter for no process")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// sh waits on a child that spins for about eight seconds (its date
	// commands, waited for, count in its CPU too).
	cmd := exec.Command(sh, "-c", `sh -c 'end=$(($(date +%s)+8)); while [ $(date +%s) -lt $end ]; do :; done'; sleep 5`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	m, err := New(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	first, err := m.Sample()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := m.Sample()
		if err != nil {
			t.Fatal(err)
		}
		if s.CPU-first.CPU >= 30*time.Millisecond && s.Procs >= 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the family (%d processes) burnt %s; want the spinning child's CPU", s.Procs, s.CPU-first.CPU)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

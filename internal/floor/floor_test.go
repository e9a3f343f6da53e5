package floor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The test binary is its own far end when this variable is set.
const echoEnv = "MCPOKE_FLOOR_ECHO_SIZE"

func TestMain(m *testing.M) {
	if os.Getenv(echoEnv) != "" {
		var size int
		json.Unmarshal([]byte(os.Getenv(echoEnv)), &size)
		if err := Echo(os.Stdin, os.Stdout, Line(size)); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLineIsJSONOfItsSize(t *testing.T) {
	for _, n := range []int{0, 12, 100, 5000} {
		l := Line(n)
		if n >= 12 && len(l) != n {
			t.Errorf("Line(%d) has %d bytes", n, len(l))
		}
		if !json.Valid(l) {
			t.Errorf("Line(%d) is not JSON: %s", n, l)
		}
	}
}

func TestEchoAnswersEveryLine(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader("a\n" + strings.Repeat("b", 100<<10) + "\nc\n")
	if err := Echo(in, &out, []byte("ok")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "ok\nok\nok\n" {
		t.Fatalf("echo wrote %q", out.String())
	}
}

func startSelf(t testing.TB, respSize int) *Peer {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), echoEnv+"="+string(mustJSON(respSize)))
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestMeasureAcrossProcesses(t *testing.T) {
	p := startSelf(t, 120)
	rounds, err := p.Measure(100, 2, 5, nil)
	if err != nil || len(rounds) != 5 {
		t.Fatalf("measured %d rounds: %v", len(rounds), err)
	}
}

// BenchmarkPipeFloor is the stdio floor: one round trip of a demo echo's
// message sizes between this process and a child, over pipes.
func BenchmarkPipeFloor(b *testing.B) {
	p := startSelf(b, 150)
	line := append(Line(110), '\n')
	b.ReportAllocs()
	for b.Loop() {
		if err := p.RoundTrip(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipeFloorHandOff is BenchmarkPipeFloor with the answer read
// by a goroutine of its own and handed on through hops channels before
// the caller has it, with this process on procs Ps: what a client whose
// reader is not its caller pays on top of the floor. On 2 cores with 2
// Ps each hand-off wakes a second thread that spins on the core the
// server needs (runtime wakep); with 1 P it costs next to nothing.
func BenchmarkPipeFloorHandOff(b *testing.B) {
	for _, procs := range []int{1, 2} {
		for _, hops := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("procs=%d/hops=%d", procs, hops), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				p := startSelf(b, 150)
				line := append(Line(110), '\n')
				answers := relay(b, p, hops)
				var rounds []time.Duration
				for b.Loop() {
					t0 := time.Now()
					if _, err := p.w.Write(line); err != nil {
						b.Fatal(err)
					}
					if err := answers(); err != nil {
						b.Fatal(err)
					}
					rounds = append(rounds, time.Since(t0))
				}
				// The mean mixes the two modes of a pipe round trip (the
				// reader's thread still spinning, or asleep); the median
				// is what bench reports.
				slices.Sort(rounds)
				b.ReportMetric(float64(rounds[len(rounds)/2].Nanoseconds()), "p50-ns")
			})
		}
	}
}

// relay returns what waits for the next answer: a read of p's output on
// the caller's goroutine (hops 0), or a receive at the end of a chain of
// hops goroutines, the first of which reads.
func relay(b *testing.B, p *Peer, hops int) func() error {
	if hops == 0 {
		return func() error { _, err := readLine(p.r); return err }
	}
	first := make(chan error)
	stop := make(chan struct{})
	b.Cleanup(func() { close(stop) })
	go func() {
		for {
			_, err := readLine(p.r)
			select {
			case first <- err:
			case <-stop:
				return
			}
		}
	}()
	c := first
	for range hops - 1 {
		in, out := c, make(chan error)
		go func() {
			for {
				select {
				case err := <-in:
					out <- err
				case <-stop:
					return
				}
			}
		}()
		c = out
	}
	return func() error { return <-c }
}

package floor

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
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

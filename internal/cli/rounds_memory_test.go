package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// roundsRSSEnv makes the test binary run one call against the doubling
// server in TestDoublingRequestStatePeakRSS's subprocess, and print its
// peak RSS.
const roundsRSSEnv = "MCPOKE_TEST_ROUNDS_RSS"

// doublingCall runs `call t` (text, or --json) against a server whose
// requestState doubles each round, through the 10-round cap.
func doublingCall(tb testing.TB, asJSON bool) (string, error) {
	g := testGlobals()
	g.client.elicit = "accept-defaults"
	f := callFlags{json: asJSON, protocol: "auto", unlisted: true, timeoutFlags: timeoutFlags{timeout: 30 * time.Second}}
	var out, errOut bytes.Buffer
	err := runCall(testContext(tb), &out, &errOut, g, modernHostileSpec(tb, "doubling"), "t", &f)
	return out.String(), err
}

// TestRoundsRSSChild is the subprocess of TestDoublingRequestStatePeakRSS.
func TestRoundsRSSChild(t *testing.T) {
	if os.Getenv(roundsRSSEnv) == "" {
		t.Skip("run by TestDoublingRequestStatePeakRSS")
	}
	out, _ := doublingCall(t, os.Getenv(roundsRSSEnv) == "json")
	if !strings.Contains(out, "round 10") && !strings.Contains(out, `"round":10`) {
		t.Fatalf("the call did not reach round 10:\n%.2000s", out)
	}
	os.Stdout.WriteString("\npeakRSS-MB " + strconv.FormatFloat(peakRSSMB(t), 'f', 1, 64) + "\n")
}

// childPeakRSS runs TestRoundsRSSChild in a fresh process (so that the
// peak is its own) and returns its peak RSS in MB.
func childPeakRSS(tb testing.TB, mode string) float64 {
	cmd := exec.Command(os.Args[0], "-test.run=^TestRoundsRSSChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), roundsRSSEnv+"="+mode, hostileServerEnv+"=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("subprocess: %v\n%.3000s", err, out)
	}
	_, rest, ok := strings.Cut(string(out), "peakRSS-MB ")
	if !ok {
		tb.Fatalf("subprocess printed no peak:\n%.3000s", out)
	}
	mb, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
	if err != nil {
		tb.Fatal(err)
	}
	return mb
}

// A server whose requestState doubles each round (32 MB in round 10)
// costs mcpoke about what the last rounds need, not every round's params
// and result: each round's state is let go once the next round's params
// hold it, and a long frame is read in blocks joined once.
func TestDoublingRequestStatePeakRSS(t *testing.T) {
	if raceEnabled {
		t.Skip("-race multiplies memory by five to ten: the bound is measured without it (go test ./... runs it)")
	}
	if testing.Short() {
		t.Skip("-short: runs 10 rounds up to a 32 MB requestState")
	}
	for _, mode := range []string{"text", "json"} {
		if mb := childPeakRSS(t, mode); mb > 200 {
			t.Errorf("%s: peak RSS %.0f MB through 10 doubling rounds; want under 200 MB (264 MB before rounds let go of earlier states; 126-208 MB while frames grew by append and the answered round was held through the send; 96-135 MB since)", mode, mb)
		} else {
			t.Logf("%s: peak RSS %.0f MB", mode, mb)
		}
	}
}

// BenchmarkDoublingRequestStatePeakRSS reports the peak RSS of a call
// through 10 rounds of a doubling requestState (32 MB in round 10), each
// run in a fresh process:
//
//	go test ./internal/cli -run '^$' -bench DoublingRequestStatePeakRSS -benchtime 1x
func BenchmarkDoublingRequestStatePeakRSS(b *testing.B) {
	for _, mode := range []string{"text", "json"} {
		b.Run(mode, func(b *testing.B) {
			peak := 0.0
			for range b.N {
				peak = max(peak, childPeakRSS(b, mode))
			}
			b.ReportMetric(peak, "peakRSS-MB")
		})
	}
}

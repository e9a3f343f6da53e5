package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

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

// doublingReachesRound10 runs the doubling call, which must go through
// the 10 rounds.
func doublingReachesRound10(t *testing.T, asJSON bool) error {
	out, _ := doublingCall(t, asJSON)
	if !strings.Contains(out, "round 10") && !strings.Contains(out, `"round":10`) {
		return fmt.Errorf("the call did not reach round 10:\n%.2000s", out)
	}
	return nil
}

// BenchmarkDoublingRequestStatePeakRSS reports the peak RSS of a call
// through 10 rounds of a doubling requestState (32 MB in round 10), each
// run in a fresh process:
//
//	go test ./internal/cli -run '^$' -bench DoublingRequestStatePeakRSS -benchtime 1x
func BenchmarkDoublingRequestStatePeakRSS(b *testing.B) {
	for _, mode := range []string{"text", "json"} {
		b.Run(mode, func(b *testing.B) { benchPeakRSS(b, "doubling-"+mode) })
	}
}

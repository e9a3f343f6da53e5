package cli

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// A server deaf to cancels answers 1.2 s into the call, over a second
// after check 1's cancel: the answer is still the cancelled call's, and
// check 1 warns with how late it came, whatever the session's settle
// window (the session keeps the late traffic of a request that settled
// as cancelled; check.go's window outlasting --listen is only for room).
func TestCheckGradesAnAnswerLongAfterTheCancel(t *testing.T) {
	t.Parallel()
	f := &checkFlags{only: "1", tool: "t", args: `{}`, protocol: "2025-11-25", listen: 1500 * time.Millisecond, load: 4, seed: 1, json: true,
		timeoutFlags: timeoutFlags{timeout: time.Minute, maxTimeout: time.Minute}}
	var out bytes.Buffer
	if err := runCheck(testContext(t), &out, testGlobals(), misbehavingSpec(t, "ignorecancel:1200"), f); err != nil {
		t.Fatalf("check: %v\n%s", err, out.String())
	}
	var rep struct {
		Checks []struct {
			Status   string
			Evidence struct {
				Counts  map[string]int
				TimesMs map[string]float64
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Checks) != 1 {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	c := rep.Checks[0]
	if late := c.Evidence.TimesMs["responseAfterCancel"]; c.Status != "warn" || c.Evidence.Counts["responses"] != 1 || late < 1000 {
		t.Errorf("check 1: %s, %d responses, the first %.0f ms after the cancel; want a warn for the one answer over 1 s late\n%s",
			c.Status, c.Evidence.Counts["responses"], late, out.String())
	}
}

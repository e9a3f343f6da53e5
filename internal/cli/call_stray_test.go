package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Responses to ids never sent are counted in --json (strayCount) and
// listed, and the text report says how many.
func TestCallCountsStrayResponses(t *testing.T) {
	rep, code := callJSON(t, "stray:3", &callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}})
	if rep.State != "completed" || code != ExitOK {
		t.Fatalf("state %s exit %d; want completed", rep.State, code)
	}
	if rep.StrayCount != 3 || len(rep.Stray) != 3 {
		t.Errorf("strayCount %d, %d listed; want 3 and 3 for three responses to ids never sent", rep.StrayCount, len(rep.Stray))
	}
	var out bytes.Buffer
	printReport(&out, &rep, &callFlags{})
	if !strings.Contains(out.String(), "stray     3 messages for no request in flight") {
		t.Errorf("text report lacks the stray count:\n%s", out.String())
	}
}

package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// check --max-timeout ends the whole run: what was checked is still
// written, and check exits 4 (timed out) saying why, as its help says.
func TestCheckMaxTimeoutReportsAndExitsTimedOut(t *testing.T) {
	f := &checkFlags{only: "1,2,3", protocol: "2025-11-25", listen: 200 * time.Millisecond, load: 4, seed: 1, json: true,
		timeoutFlags: timeoutFlags{timeout: time.Minute, maxTimeout: 700 * time.Millisecond}}
	var out bytes.Buffer
	start := time.Now()
	err := runCheck(testContext(t), &out, testGlobals(), misbehavingSpec(t, "silent"), f)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s; want about --max-timeout", took.Round(time.Millisecond))
	}
	if code := exitStatus(err); code != ExitTimedOut || err == nil || !strings.Contains(err.Error(), "check gave up after 700ms in all (--max-timeout)") {
		t.Fatalf("exit %d (%v); want %d saying check gave up after --max-timeout", code, err, ExitTimedOut)
	}
	if !strings.Contains(out.String(), `"checks"`) {
		t.Errorf("no report of what was checked:\n%s", out.String())
	}
}

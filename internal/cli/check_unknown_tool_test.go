package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// check --tool naming a tool the server lacks is bad usage, found once
// connected: exit 2 with the reason, not the exit status of a run that
// gave up.
func TestCheckUnknownToolIsUsage(t *testing.T) {
	f := &checkFlags{tool: "nosuch", only: "1", protocol: "2025-11-25", listen: 200 * time.Millisecond, load: 1, seed: 1,
		timeoutFlags: timeoutFlags{timeout: time.Minute, maxTimeout: time.Minute}}
	var out bytes.Buffer
	err := runCheck(testContext(t), &out, testGlobals(), misbehavingSpec(t, "plain"), f)
	if code := exitStatus(err); code != ExitUsage || err == nil || !strings.Contains(err.Error(), `the server has no tool "nosuch"`) {
		t.Fatalf("exit %d (%v); want %d saying the server has no such tool", code, err, ExitUsage)
	}
	if strings.Contains(err.Error(), "usage: ") {
		t.Errorf("error %q still starts with check's own prefix", err)
	}
}

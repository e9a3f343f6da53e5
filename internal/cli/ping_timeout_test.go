package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A server that never answers ping holds each ping no longer than
// --timeout, and says which request it waited for and how long; the exit
// status is call's for a timeout (4).
func TestPingTimeoutNamesTheRequest(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	err := runPing(testContext(t), &out, testGlobals(), misbehavingSpec(t, "deafping"), "2025-11-25", 2, timeoutFlags{timeout: 300 * time.Millisecond}, false)
	if code := exitStatus(err); code != ExitTimedOut {
		t.Errorf("exit %d (%v), want %d", code, err, ExitTimedOut)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("two pings bounded at 300ms took %s", took)
	}
	for _, want := range []string{
		"ping 1  timed out after 30", "no answer to ping (request 2) within --timeout 300ms; cancelled on the wire",
		"ping 2  timed out after 30", "(request 3) within --timeout 300ms",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// --max-timeout bounds the whole run of --count pings: the ping it cuts
// says so, the pings not sent are counted, and --json says why it stopped.
func TestPingMaxTimeoutEndsTheRun(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	err := runPing(testContext(t), &out, testGlobals(), misbehavingSpec(t, "deafping"), "2025-11-25", 5, timeoutFlags{timeout: time.Minute, maxTimeout: 400 * time.Millisecond}, true)
	if code := exitStatus(err); code != ExitTimedOut {
		t.Errorf("exit %d (%v), want %d", code, err, ExitTimedOut)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("a run bounded at 400ms took %s", took)
	}
	var got struct {
		Pings   []pingResult `json:"pings"`
		Stopped string       `json:"stopped"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, out.String())
	}
	if len(got.Pings) != 1 || !got.Pings[0].TimedOut || !strings.Contains(got.Pings[0].Error, "within --max-timeout 400ms of the whole run") {
		t.Errorf("pings %+v; want one, timed out by --max-timeout", got.Pings)
	}
	if got.Stopped != "--max-timeout 400ms ended the run after 1 of 5 pings" {
		t.Errorf("stopped %q", got.Stopped)
	}
}

// Pings answered in time exit 0 whatever the bounds.
func TestPingAnsweredWithinTheBounds(t *testing.T) {
	var out bytes.Buffer
	err := runPing(testContext(t), &out, testGlobals(), misbehavingSpec(t, "silent"), "2025-11-25", 2, testTimeouts, false)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), ": 2 pings\n") || strings.Contains(out.String(), "timed out") {
		t.Errorf("output:\n%s", out.String())
	}
}

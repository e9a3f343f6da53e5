package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// callJSON runs call --json against a misbehaving server and decodes the
// report.
func callJSON(t *testing.T, mode string, f *callFlags) (callReport, int) {
	t.Helper()
	f.json = true
	var out, errOut bytes.Buffer
	err := runCall(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, mode), "t", f)
	var rep callReport
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil {
		t.Fatalf("call --json against %s: %v (%v)\n%s\n%s", mode, jerr, err, out.String(), errOut.String())
	}
	return rep, exitStatus(err)
}

// The defaults: no call waits for ever.
func TestCallTimeoutDefaults(t *testing.T) {
	cmd := newCallCommand(&globalFlags{})
	for flag, want := range map[string]string{"timeout": "1m0s", "max-timeout": "10m0s"} {
		if got := cmd.Flags().Lookup(flag).DefValue; got != want {
			t.Errorf("--%s default %s, want %s", flag, got, want)
		}
	}
}

// A silent server's call times out, is cancelled, and the report shows
// the timeout it had.
func TestCallSilentServerTimesOut(t *testing.T) {
	rep, code := callJSON(t, "silent", &callFlags{timeoutFlags: timeoutFlags{timeout: 200 * time.Millisecond, maxTimeout: 10 * time.Minute}})
	if rep.State != "timed_out" || code != ExitTimedOut || rep.TimeoutMs != 200 || rep.MaxTimeoutMs != 600000 {
		t.Fatalf("state %s exit %d timeout %v max %v", rep.State, code, rep.TimeoutMs, rep.MaxTimeoutMs)
	}
	var out bytes.Buffer
	printReport(&out, &rep, &callFlags{})
	if !strings.Contains(out.String(), "timeout   200ms, restarted by each progress; at most 10m0s in all\n") {
		t.Errorf("report lacks the timeout line:\n%s", out.String())
	}
}

// --max-timeout 0 means no maximum, not the session's default of ten
// times --timeout: a call that keeps reporting progress runs past 10 ×
// --timeout and completes, and the report says it had no maximum.
func TestCallMaxTimeoutZeroIsNone(t *testing.T) {
	// 250 progress 20ms apart: about 5s, past 10 × 400ms. The timeout is
	// twenty gaps long, so that a loaded machine's pause between two
	// progress notifications does not end the call (150ms did, at load 9).
	rep, code := callJSON(t, "trickle:250", &callFlags{timeoutFlags: timeoutFlags{timeout: 400 * time.Millisecond, maxTimeout: 0}})
	if rep.State != "completed" || code != ExitOK {
		t.Fatalf("state %s exit %d error %+v after %v ms; want completed: --max-timeout 0 set a maximum", rep.State, code, rep.Error, rep.ElapsedMs)
	}
	if rep.MaxTimeoutMs != 0 {
		t.Errorf("maxTimeoutMs %v; want 0 (none)", rep.MaxTimeoutMs)
	}
	var out bytes.Buffer
	printReport(&out, &rep, &callFlags{})
	if !strings.Contains(out.String(), "timeout   400ms, restarted by each progress\n") {
		t.Errorf("report lacks the timeout line without a maximum:\n%s", out.String())
	}
}

// A response the server sent but that cannot be used fails the call at
// once, saying what was wrong, long before the timeout.
func TestCallUnusableResponseFailsAtOnce(t *testing.T) {
	for mode, want := range map[string]string{
		"pretty":   "pretty-printed over several lines",
		"badutf8":  "invalid UTF-8 at byte",
		"trailing": `7 bytes after the JSON value ("garbage")`,
		"deep":     "JSON nested 20002 deep, over the limit of 10000",
		"oversize": "over the size limit of 32 MiB",
		"closeout": "server closed its output",
	} {
		t.Run(mode, func(t *testing.T) {
			start := time.Now()
			rep, code := callJSON(t, mode, &callFlags{timeoutFlags: timeoutFlags{timeout: 50 * time.Second}})
			if rep.State != "failed" || code != ExitFailed || rep.Error == nil || !strings.Contains(rep.Error.Message, want) {
				t.Fatalf("state %s exit %d error %+v, want failed with %q", rep.State, code, rep.Error, want)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("took %v: the call waited instead of failing at once", d)
			}
		})
	}
}

// A byte-order mark before each frame is stripped: the call completes.
func TestCallBehindBOMCompletes(t *testing.T) {
	if rep, code := callJSON(t, "bom", &callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}}); rep.State != "completed" || code != ExitOK {
		t.Fatalf("state %s exit %d", rep.State, code)
	}
}

// Stderr keeps the last 1000 lines and counts them all.
func TestCallCountsStderrPastTheCap(t *testing.T) {
	rep, _ := callJSON(t, "stderr:2500", &callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}})
	if rep.StderrLines != 2500 || len(rep.Stderr) != maxStderrKept || rep.Stderr[0] != "line 1500" {
		t.Fatalf("stderrLines %d, kept %d, first %q", rep.StderrLines, len(rep.Stderr), rep.Stderr[0])
	}
	var out bytes.Buffer
	printReport(&out, &rep, &callFlags{stderr: true})
	if !strings.Contains(out.String(), "stderr    2500 lines from the server, first 1500 not kept\n") {
		t.Errorf("report:\n%.400s", out.String())
	}
}

// --json lists every progress notification; the text report keeps the
// count and the first and last few.
func TestCallProgressKeptForJSONOnly(t *testing.T) {
	rep, _ := callJSON(t, "progress:5000", &callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}})
	if rep.ProgressCount != 5000 || len(rep.Progress) != 5000 {
		t.Fatalf("--json: count %d, listed %d", rep.ProgressCount, len(rep.Progress))
	}
	var out, errOut bytes.Buffer
	f := &callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}}
	runCall(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "progress:5000"), "t", f)
	if !strings.Contains(out.String(), "progress  5000 notifications; last 4999 step") {
		t.Errorf("text report:\n%s%s", out.String(), errOut.String())
	}
}

// A tools/list that never ends is cut short with a warning and exit 1.
func TestToolsEndlessPagesExitsNonZero(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runTools(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "pages"), "", false, testTimeouts)
	if exitStatus(err) != ExitFailed || !strings.Contains(errOut.String(), "mcpoke: warning: tools/list") {
		t.Fatalf("exit %d, stderr %q", exitStatus(err), errOut.String())
	}
}

// An initialize that gets no answer says what the server wrote instead.
func TestInitTimeoutNamesWhatWasDiscarded(t *testing.T) {
	g := testGlobals()
	g.initTimeout = 8 * time.Second // room to read a 33 MiB frame on a loaded machine
	var out, errOut bytes.Buffer
	err := runCall(testContext(t), &out, &errOut, g, misbehavingSpec(t, "initnoise"), "t", &callFlags{})
	want := "discarded while waiting: 1 line that is not JSON, 1 frame over the size limit (33 MiB), 1 byte-order mark"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A call the server completed with a tool error (isError) exits 1, and
// its report says so: the exit code is what a script reads.
func TestCallWithToolErrorExitsFailed(t *testing.T) {
	rep, code := callJSON(t, "iserror", &callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}})
	if rep.State != "completed" || code != ExitFailed {
		t.Fatalf("state %s exit %d; want completed with exit %d for a result with isError", rep.State, code, ExitFailed)
	}
	var out, errOut bytes.Buffer
	err := runCall(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "iserror"), "t", &callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}})
	if exitStatus(err) != ExitFailed || !strings.Contains(out.String(), "state     completed, with a tool error (isError) after") {
		t.Errorf("text report: exit %d (%v); want exit %d and the state saying isError:\n%s", exitStatus(err), err, ExitFailed, out.String())
	}
}

// read --out exits 1 when the read completed but nothing could be saved
// (here: the server's result has no contents), and the report says why.
func TestReadOutThatSavedNothingExitsFailed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "saved")
	f := &readFlags{callFlags: callFlags{timeoutFlags: timeoutFlags{timeout: 30 * time.Second}}, out: path}
	var out, errOut bytes.Buffer
	err := runRead(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "plain"), "demo://r", f)
	if code := exitStatus(err); code != ExitFailed {
		t.Errorf("exit %d (%v); want %d when --out saved nothing\n%s%s", code, err, ExitFailed, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "state     completed after") || !strings.Contains(out.String(), "saved     nothing saved to "+path+": ") {
		t.Errorf("report lacks the completed state or why nothing was saved:\n%s", out.String())
	}
}

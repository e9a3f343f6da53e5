package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// --timeout 0 and --max-timeout 0 mean never, on the list commands as on
// call: a list with both at 0 is answered, not timed out at once (a
// timeout of 0 passed on as such, or as 1ns, would end the page before
// its answer).
func TestListTimeoutsZeroAreNever(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runTools(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "plain"), "", false, timeoutFlags{})
	if err != nil {
		t.Fatalf("tools --timeout 0 --max-timeout 0: %v (exit %d)\n%s", err, exitStatus(err), errOut.String())
	}
	if !strings.Contains(out.String(), "\nt\n") {
		t.Errorf("tools --timeout 0 did not list the server's tool t:\n%s", out.String())
	}
}

// A duration of 0 is allowed (it means never); only a negative one is
// bad usage, exit 2, on every command that takes the two flags.
func TestTimeoutFlagsRefuseOnlyNegatives(t *testing.T) {
	for _, tc := range []struct {
		flags timeoutFlags
		bad   bool
	}{
		{timeoutFlags{}, false},
		{timeoutFlags{timeout: time.Second, maxTimeout: time.Minute}, false},
		{timeoutFlags{timeout: -time.Nanosecond}, true},
		{timeoutFlags{maxTimeout: -time.Nanosecond}, true},
	} {
		err := tc.flags.checkTimeouts()
		if tc.bad != (err != nil) || tc.bad && exitStatus(err) != ExitUsage {
			t.Errorf("--timeout %v --max-timeout %v: %v (exit %d); want refused with exit 2: %v",
				tc.flags.timeout, tc.flags.maxTimeout, err, exitStatus(err), tc.bad)
		}
	}
}

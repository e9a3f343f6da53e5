package cli

import (
	"strings"
	"testing"
	"time"
)

// call, read and prompt accept 0 for each duration (none, or never) and
// refuse a negative one, or a --reason without --cancel-after, with exit 2
// before anything starts.
func TestRequestFlagsRefuseOnlyWhatMakesNoSense(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    callFlags
		want string // "" when accepted
	}{
		{"every duration 0", callFlags{}, ""},
		{"durations and a reason", callFlags{cancelAfter: time.Second, waitLate: time.Second, reason: "bored",
			timeoutFlags: timeoutFlags{timeout: time.Second, maxTimeout: time.Minute}}, ""},
		{"a log level", callFlags{logLevel: "debug"}, ""},
		{"negative --wait-late", callFlags{waitLate: -time.Nanosecond}, "must not be negative"},
		{"negative --cancel-after", callFlags{cancelAfter: -time.Nanosecond}, "must not be negative"},
		{"negative --timeout", callFlags{timeoutFlags: timeoutFlags{timeout: -time.Nanosecond}}, "must not be negative"},
		{"negative --max-timeout", callFlags{timeoutFlags: timeoutFlags{maxTimeout: -time.Nanosecond}}, "must not be negative"},
		{"--reason alone", callFlags{reason: "bored"}, "--reason goes with --cancel-after"},
		{"an unknown log level", callFlags{logLevel: "loud"}, "--log-level"},
	} {
		err := tc.f.check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused (%v); want accepted", tc.name, err)
		case tc.want != "" && (err == nil || exitStatus(err) != ExitUsage || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v (exit %d); want exit 2 saying %q", tc.name, err, exitStatus(err), tc.want)
		}
	}
}

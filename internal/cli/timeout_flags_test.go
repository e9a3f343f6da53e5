package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Every command that sends a request has --timeout and --max-timeout,
// shown in its help; the list commands and bench have call's defaults.
func TestEveryRequestCommandHasTimeouts(t *testing.T) {
	root := newRoot()
	for _, name := range []string{"call", "read", "prompt", "tools", "resources", "prompts", "tasks", "bench", "check"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd.Name() != name {
			t.Fatalf("no command %s: %v", name, err)
		}
		for _, flag := range []string{"timeout", "max-timeout"} {
			f := cmd.Flags().Lookup(flag)
			if f == nil {
				t.Errorf("%s has no --%s", name, flag)
				continue
			}
			want := map[string]string{"timeout": "1m0s", "max-timeout": "10m0s"}[flag]
			if name == "check" && flag == "timeout" {
				want = "15s" // a judge's wait for each call, documented
			}
			if f.DefValue != want {
				t.Errorf("%s --%s defaults to %s, want %s", name, flag, f.DefValue, want)
			}
			if !strings.Contains(cmd.UsageString(), "--"+flag) {
				t.Errorf("%s --help does not show --%s", name, flag)
			}
		}
	}
}

// The tool list call reads before it calls is bounded by --timeout: a
// server that trickles that answer and never ends it no longer holds
// call for the list's own 30 s. So are the list commands, with call's
// exit status for a timeout (4) and a message that names the request and
// the time it waited.
func TestToolListBoundedByTimeout(t *testing.T) {
	within := timeoutFlags{timeout: 500 * time.Millisecond, maxTimeout: 10 * time.Minute}
	for name, run := range map[string]func(o, e *bytes.Buffer) error{
		"call": func(o, e *bytes.Buffer) error {
			return runCall(testContext(t), o, e, testGlobals(), misbehavingSpec(t, "tricklelist"), "t", &callFlags{timeoutFlags: within})
		},
		"tools": func(o, e *bytes.Buffer) error {
			return runTools(testContext(t), o, e, testGlobals(), misbehavingSpec(t, "tricklelist"), "", false, within)
		},
		"tools --max-timeout": func(o, e *bytes.Buffer) error {
			return runTools(testContext(t), o, e, testGlobals(), misbehavingSpec(t, "tricklelist"), "", false,
				timeoutFlags{timeout: time.Minute, maxTimeout: 700 * time.Millisecond})
		},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			start := time.Now()
			err := run(&out, &errOut)
			took := time.Since(start)
			if took > 5*time.Second {
				t.Errorf("took %s; want about the timeout", took.Round(time.Millisecond))
			}
			if code := exitStatus(err); code != ExitTimedOut {
				t.Errorf("exit %d (%v), want %d", code, err, ExitTimedOut)
			}
			if err == nil || !strings.Contains(err.Error(), "tools/list, page 1") || !strings.Contains(err.Error(), "timeout after") {
				t.Errorf("error %v; want it to name tools/list and how long it waited", err)
			}
		})
	}
}

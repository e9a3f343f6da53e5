package cli

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/check"
)

// check --timeout 0 waits for ever on each call, as its help says; any
// other value is passed on as it is.
func TestCheckTimeoutZeroIsNever(t *testing.T) {
	for timeout, want := range map[time.Duration]time.Duration{
		0:                        math.MaxInt64,
		check.DefaultCallTimeout: check.DefaultCallTimeout,
		time.Millisecond:         time.Millisecond,
	} {
		f := &checkFlags{listen: time.Second, load: 1, timeoutFlags: timeoutFlags{timeout: timeout}}
		opts, err := f.checkOptions()
		if err != nil {
			t.Fatalf("--timeout %v: %v", timeout, err)
		}
		if opts.CallTimeout != want {
			t.Errorf("--timeout %v: each call waits %v, want %v", timeout, opts.CallTimeout, want)
		}
	}
}

// The flags that take a check's number or a count of checks accept every
// value from the first check to the last, and refuse one past either end.
func TestCheckFlagsAcceptEveryCheckAndNoMore(t *testing.T) {
	last := len(check.IDs())
	lastID := strconv.Itoa(last)
	ok := checkFlags{listen: time.Second, load: 1}
	for _, tc := range []struct {
		name string
		edit func(*checkFlags)
		want string // "" when accepted
	}{
		{"--only the first and last", func(f *checkFlags) { f.only = "1," + lastID }, ""},
		{"--skip the last", func(f *checkFlags) { f.skip = lastID }, ""},
		{"--only 0", func(f *checkFlags) { f.only = "0" }, `"0" is not a check`},
		{"--skip past the last", func(f *checkFlags) { f.skip = strconv.Itoa(last + 1) }, "is not a check"},
		{"--min-checks 0", func(f *checkFlags) { f.minChecks = 0 }, ""},
		{"--min-checks all", func(f *checkFlags) { f.minChecks = last }, ""},
		{"--min-checks -1", func(f *checkFlags) { f.minChecks = -1 }, "--min-checks must be between 0 and " + lastID},
		{"--min-checks past all", func(f *checkFlags) { f.minChecks = last + 1 }, "--min-checks must be between 0 and " + lastID},
		{"--ping-timeout 0 (the default)", func(f *checkFlags) { f.pingTimeout = 0 }, ""},
		{"--ping-timeout negative", func(f *checkFlags) { f.pingTimeout = -time.Second }, "--ping-timeout"},
		{"--listen negative", func(f *checkFlags) { f.listen = -time.Second }, "--listen"},
		{"--load negative", func(f *checkFlags) { f.load = -1 }, "--load"},
	} {
		f := ok
		tc.edit(&f)
		opts, err := f.checkOptions()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused (%v); want accepted", tc.name, err)
		case tc.want != "" && (err == nil || exitStatus(err) != ExitUsage || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v (exit %d); want exit 2 saying %q", tc.name, err, exitStatus(err), tc.want)
		}
		if tc.name == "--only the first and last" && !slices.Equal(opts.Only, []int{1, last}) {
			t.Errorf("%s: only %v, want [1 %d]", tc.name, opts.Only, last)
		}
	}
}

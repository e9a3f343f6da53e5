package cli

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCheckFlagsBecomeOptions(t *testing.T) {
	f := &checkFlags{tool: "sleep", args: `{"seconds":1}`, only: "1, 2,6", skip: "6", listen: time.Second, load: 10, seed: 7}
	opts, err := f.checkOptions()
	if err != nil {
		t.Fatal(err)
	}
	if opts.Tool != "sleep" || string(opts.Args) != `{"seconds":1}` || !slices.Equal(opts.Only, []int{1, 2, 6}) ||
		!slices.Equal(opts.Skip, []int{6}) || opts.Listen != time.Second || opts.Load != 10 || opts.Seed != 7 {
		t.Errorf("options %+v", opts)
	}
}

func TestCheckFlagsRefuseBadUsage(t *testing.T) {
	ok := checkFlags{listen: time.Second, load: 1}
	for _, tc := range []struct {
		name string
		edit func(*checkFlags)
		want string
	}{
		{"two formats", func(f *checkFlags) { f.json, f.markdown = true, true }, "choose one"},
		{"no listen", func(f *checkFlags) { f.listen = 0 }, "--listen"},
		{"no load", func(f *checkFlags) { f.load = 0 }, "--load"},
		{"args alone", func(f *checkFlags) { f.args = "{}" }, "--args goes with --tool"},
		{"args not an object", func(f *checkFlags) { f.tool, f.args = "x", "[1]" }, "JSON object"},
		{"unknown check", func(f *checkFlags) { f.only = "1,11" }, `"11" is not a check`},
		{"not a number", func(f *checkFlags) { f.skip = "two" }, `"two" is not a check`},
	} {
		f := ok
		tc.edit(&f)
		_, err := f.checkOptions()
		if err == nil || exitStatus(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v (exit %d); want exit 2 saying %q", tc.name, err, exitStatus(err), tc.want)
		}
	}
}

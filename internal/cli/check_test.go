package cli

import (
	"bytes"
	"encoding/json"
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

// A broken MUST makes check exit 1 in every format: the exit code is the
// verdict a CI job reads, whether it asked for text, JSON or Markdown.
func TestCheckExitsFailedOnAMustFailureInEveryFormat(t *testing.T) {
	for _, format := range []string{"text", "json", "markdown"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			f := &checkFlags{only: "3", protocol: "2025-11-25", listen: 200 * time.Millisecond, load: 4, seed: 1,
				json: format == "json", markdown: format == "markdown"}
			var out bytes.Buffer
			err := runCheck(testContext(t), &out, testGlobals(), misbehavingSpec(t, "diesoncancel"), f)
			if code := exitStatus(err); code != ExitFailed {
				t.Fatalf("exit %d (%v); want %d for a server that dies on a cancel (check 3, a MUST)\n%s", code, err, ExitFailed, out.String())
			}
			if format == "json" {
				var rep struct {
					Summary struct{ Fail int } `json:"summary"`
				}
				if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Summary.Fail != 1 {
					t.Errorf("summary.fail %d (%v); want 1\n%s", rep.Summary.Fail, err, out.String())
				}
			}
		})
	}
}

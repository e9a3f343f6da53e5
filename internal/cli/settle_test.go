package cli

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestSettleFlag(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		tui, call time.Duration
	}{
		{nil, time.Second, -1}, // call watches with --wait-late unless told
		{[]string{"--settle", "2.5s"}, 2500 * time.Millisecond, 2500 * time.Millisecond},
		{[]string{"--settle", "0"}, -1, -1}, // 0 is none, not the session's default
	} {
		g := &globalFlags{}
		fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
		settleFlag(fl, g)
		if err := fl.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := g.settleWindow(); got != tc.tui {
			t.Errorf("%v: TUI window %v, want %v", tc.args, got, tc.tui)
		}
		if got := g.callSettleWindow(); got != tc.call {
			t.Errorf("%v: call window %v, want %v", tc.args, got, tc.call)
		}
	}
}

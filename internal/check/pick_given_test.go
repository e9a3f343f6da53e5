package check

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// runPicking runs only check id after the pick: 10 on a pipe skips at
// once, and 1 skips at once without a tool, saying why.
func runPicking(t *testing.T, id int, bad misbehaviour, tool, args string) (*Report, error) {
	t.Helper()
	conn := connected(t, func(b *transporttest.End) { serveMisbehaving(b, bad) })
	opts := testOptions(id)
	opts.Tool = tool
	if args != "" {
		opts.Args = json.RawMessage(args)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return Run(ctx, conn, opts)
}

// --tool without --args calls it with arguments built from its schema
// (none: the work tool's default duration is under 3 s); with --args,
// with those.
func TestGivenToolTakesItsArgumentsOrBuildsThem(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{"": `{}`, `{"seconds":0.7}`: `{"seconds":0.7}`} {
		rep, err := runPicking(t, 10, misbehaviour{}, "work", args)
		if err != nil {
			t.Fatalf("--args %q: %v", args, err)
		}
		if rep.Tool == nil || string(rep.Tool.Args) != want || !strings.HasPrefix(rep.Tool.Why, "given with --tool") {
			t.Errorf("--args %q: tool %+v; want work with %s, given with --tool", args, rep.Tool, want)
		}
	}
}

// --args that the tool's inputSchema refuses are a usage error, before
// any call.
func TestGivenArgumentsMustMatchTheSchema(t *testing.T) {
	t.Parallel()
	_, err := runPicking(t, 10, misbehaviour{}, "work", `{"seconds":"soon"}`)
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "do not match its inputSchema") {
		t.Errorf("Run with --args the schema refuses: %v; want a usage error about the inputSchema", err)
	}
}

// A tool that answers its probe call at once cannot be cancelled: the
// checks that need one skip, saying how the probe went, whether the tool
// was given or picked.
func TestAToolThatAnswersAtOnceIsNotKept(t *testing.T) {
	t.Parallel()
	for tool, want := range map[string]string{
		"work": "the work call answered in ",
		"":     "no probed tool was still working when cancelled (work answered in ",
	} {
		rep, err := runPicking(t, 1, misbehaviour{quickFrom: 1, quickTo: 1}, tool, "")
		if err != nil {
			t.Fatalf("--tool %q: %v", tool, err)
		}
		c := expect(t, rep, 1, Skip, Should)
		if rep.Tool != nil || !strings.HasPrefix(c.Reason, want) {
			t.Errorf("--tool %q: tool %+v, check 1 skipped with %q; want no tool and a reason starting %q", tool, rep.Tool, c.Reason, want)
		}
	}
}

// A server that dies on the probe's cancel is told so: the cancel that
// killed it is named as the probe's call's.
func TestADeathOnTheProbesCancelNamesTheProbe(t *testing.T) {
	t.Parallel()
	rep, err := runPicking(t, 3, misbehaviour{dieOnCancelN: 1}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	c := expect(t, rep, 3, Fail, Must)
	js, _ := json.Marshal(c)
	if !strings.Contains(string(js), "(the tool probe's call, by its notifications/cancelled)") {
		t.Errorf("check 3 does not name the probe's call as the one whose cancel the server died on:\n%s", js)
	}
}

// A tool whose call says isError is never kept, and the probe says so.
func TestAToolThatFailsIsNotKept(t *testing.T) {
	t.Parallel()
	rep, err := runPicking(t, 1, misbehaviour{toolError: true}, "work", "")
	if err != nil {
		t.Fatal(err)
	}
	c := expect(t, rep, 1, Skip, Should)
	if want := "the work call failed (the tool returned isError) in the probe"; rep.Tool != nil || !strings.HasPrefix(c.Reason, want) {
		t.Errorf("tool %+v, check 1 skipped with %q; want no tool and %q", rep.Tool, c.Reason, want)
	}
}

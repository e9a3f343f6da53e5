package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// cancelPointKind is when the storm cancels a call it picked.
type cancelPointKind uint8

const (
	// cancelAfterDelay: at a moment drawn evenly from [from, to] after
	// the request was written.
	cancelAfterDelay cancelPointKind = iota
	// cancelBeforeFirstProgress: as soon as the request was written,
	// before the server could report any progress.
	cancelBeforeFirstProgress
	// cancelMidProgress: once the server reported half its work done
	// (progress ≥ total/2), or at its first progress when it gives no
	// total: the server is known to be working.
	cancelMidProgress
)

// namedPoints are the points --cancel-after names rather than times: as
// the flag spells each, and as the verdict says it.
var namedPoints = map[cancelPointKind]struct{ flag, words string }{
	cancelBeforeFirstProgress: {"before-first-progress", "before their first progress"},
	cancelMidProgress:         {"mid-progress", "mid-progress"},
}

// cancelPoint is --cancel-after.
type cancelPoint struct {
	kind     cancelPointKind
	from, to time.Duration
}

// String is the point as --cancel-after spells it, and as the JSON
// report's cancelAt gives it.
func (p cancelPoint) String() string {
	if named, ok := namedPoints[p.kind]; ok {
		return named.flag
	}
	if p.from == p.to {
		return p.from.String()
	}
	return p.from.String() + ".." + p.to.String()
}

// words is the point as the verdict says it: "at 50–500 ms".
func (p cancelPoint) words() string {
	if named, ok := namedPoints[p.kind]; ok {
		return named.words
	}
	if p.from == p.to {
		return "at " + human(ms(p.from))
	}
	if p.to < 10*time.Second && p.from%time.Millisecond == 0 && p.to%time.Millisecond == 0 {
		return fmt.Sprintf("at %d–%d ms", p.from.Milliseconds(), p.to.Milliseconds())
	}
	return "at " + human(ms(p.from)) + "–" + human(ms(p.to))
}

// parseCancelPoint reads --cancel-after: "D1..D2" (the unit of D2 serves
// D1 when D1 has none: "50..500ms"), one duration, or a named point.
func parseCancelPoint(s string) (cancelPoint, error) {
	for kind, named := range namedPoints {
		if s == named.flag {
			return cancelPoint{kind: kind}, nil
		}
	}
	bad := func(why string) (cancelPoint, error) {
		return cancelPoint{}, usageError("--cancel-after %s: %s; give D1..D2 (such as 50ms..500ms), one duration, before-first-progress or mid-progress", quote(s), why)
	}
	lo, hi, ranged := strings.Cut(s, "..")
	if !ranged {
		hi = lo
	}
	to, err := time.ParseDuration(hi)
	if err != nil {
		return bad("not a duration")
	}
	if _, err := strconv.ParseFloat(lo, 64); err == nil && lo != "0" {
		lo += strings.TrimLeft(hi, "0123456789.") // "50..500ms": D2's unit
	}
	from, err := time.ParseDuration(lo)
	switch {
	case err != nil:
		return bad("not a duration")
	case from < 0 || to < from:
		return bad("the range must run forward from 0 or more")
	}
	return cancelPoint{kind: cancelAfterDelay, from: from, to: to}, nil
}

// parseCancelRate reads --cancel-rate: a share from 0 to 1, or a
// percentage ("30%").
func parseCancelRate(s string) (float64, error) {
	v, pct := strings.CutSuffix(s, "%")
	r, err := strconv.ParseFloat(v, 64)
	if pct {
		r /= 100
	}
	if err != nil || r < 0 || r > 1 || r != r {
		return 0, usageError("--cancel-rate %s: give a share from 0 to 1 (0.3) or a percentage (30%%)", quote(s))
	}
	return r, nil
}

// stormFlags adds the cancel storm's flags to bench's.
func stormFlags(fl *pflag.FlagSet) {
	fl.String("cancel-rate", "", "run a cancel storm: cancel this share of the calls (0.3 or 30%), after the same run without cancels")
	fl.String("cancel-after", "10ms..100ms", "when the storm cancels a call: D1..D2 (a moment drawn evenly in the range, from the request written), one duration, before-first-progress or mid-progress (half the progress total reported, or the first progress without a total)")
	fl.Int("calls", 0, "how many calls to make: the same as -n")
	fl.Duration("for", 0, "with --cancel-rate: make calls for this long instead of -n calls (each of the two runs)")
}

// readStormFlags reads the storm's flags into f.
func (f *benchFlags) readStormFlags(fl *pflag.FlagSet) error {
	if fl.Changed("calls") {
		f.n, _ = fl.GetInt("calls")
		if fl.Changed("n") {
			return usageError("-n and --calls are the same; give one")
		}
	}
	f.storm = fl.Changed("cancel-rate")
	f.forD, _ = fl.GetDuration("for")
	// A storm's call counts as timed out after --timeout, as any call does.
	f.callTimeout = f.timeout
	if !f.storm {
		for _, name := range []string{"cancel-after", "for"} {
			if fl.Changed(name) {
				return usageError("--%s goes with --cancel-rate, which runs the cancel storm", name)
			}
		}
		return nil
	}
	rate, _ := fl.GetString("cancel-rate")
	after, _ := fl.GetString("cancel-after")
	var err error
	if f.cancelRate, err = parseCancelRate(rate); err != nil {
		return err
	}
	if f.cancelAt, err = parseCancelPoint(after); err != nil {
		return err
	}
	if f.forD < 0 || f.callTimeout <= 0 {
		return usageError("--for must not be negative and --timeout must be more than 0")
	}
	if f.floor {
		return usageError("--floor and --cancel-rate measure different things: run them apart")
	}
	return nil
}

// stormPlan is the storm the flags ask for.
func (f *benchFlags) stormPlan() stormPlan {
	p := stormPlan{rate: f.cancelRate, at: f.cancelAt, concurrency: f.concurrency, watch: f.watch, timeout: f.callTimeout, forD: f.forD}
	if f.forD == 0 {
		p.calls = f.n
	}
	return p
}

package check

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// A duration argument is read from the arguments, else its default; a
// zero or a day or more is no duration, and the next one is read.
func TestDurationOfReadsTheDurationArgument(t *testing.T) {
	tool := parseTools(t, `{"name":"t","inputSchema":{"type":"object","properties":{
		"delay":{"type":"number"},"seconds":{"type":"number","default":4}}}}`)[0]
	for args, want := range map[string]time.Duration{
		`{"delay":2}`:                 2 * time.Second,
		`{"delay":0.5,"seconds":1}`:   500 * time.Millisecond,
		`{}`:                          4 * time.Second,
		`{"delay":0}`:                 4 * time.Second,
		`{"delay":86399,"seconds":1}`: 86399 * time.Second,
		`{"delay":86400,"seconds":1}`: time.Second,
		`{"delay":-1,"seconds":0}`:    0,
	} {
		if got := durationOf(tool, json.RawMessage(args)); got != want {
			t.Errorf("durationOf %s = %s; want %s", args, got, want)
		}
	}
}

// The duration is set to 3 s only when its default is longer (or none).
func TestBuildArgsShortensOnlyALongerDefault(t *testing.T) {
	for def, want := range map[string]string{
		``:               `{"seconds":3}`,
		`,"default":3`:   `{}`,
		`,"default":2.5`: `{}`,
		`,"default":10`:  `{"seconds":3}`,
	} {
		tool := parseTools(t, `{"name":"t","inputSchema":{"type":"object","properties":{"seconds":{"type":"number"`+def+`}}}}`)[0]
		if got := string(buildArgs(tool, true)); got != want {
			t.Errorf("default %q: args %s; want %s", def, got, want)
		}
	}
}

func probedTool(t *testing.T, name string, score int) probed {
	t.Helper()
	return probed{candidate: candidate{tool: parseTools(t, `{"name":"`+name+`"}`)[0], args: json.RawMessage(`{}`), score: score}}
}

// The probe stops once a tool reports progress while working and no tool
// ranked as high still works without having reported any.
func TestDecidedWaitsForEveryRankedAsHigh(t *testing.T) {
	reporting := probedTool(t, "a", 2)
	reporting.firstProgress = 25 * time.Millisecond
	silent := func(score int) probed { return probedTool(t, "b", score) }
	ended := silent(2)
	ended.ended = true
	failed := silent(2)
	failed.err = errors.New("boom")
	endedReporting := reporting
	endedReporting.ended = true
	failedReporting := reporting
	failedReporting.err = errors.New("boom")
	for name, tc := range map[string]struct {
		out  []probed
		want bool
	}{
		"nothing yet":                      {[]probed{silent(2)}, false},
		"one reporting alone":              {[]probed{reporting}, true},
		"a silent rival as high":           {[]probed{reporting, silent(2)}, false},
		"a silent rival higher":            {[]probed{silent(3), reporting}, false},
		"a silent rival lower":             {[]probed{reporting, silent(1)}, true},
		"the rival ended":                  {[]probed{reporting, ended}, true},
		"the rival failed":                 {[]probed{failed, reporting}, true},
		"the reporting one ended":          {[]probed{endedReporting}, false},
		"the reporting one failed":         {[]probed{failedReporting}, false},
		"two reporting, neither is silent": {[]probed{reporting, reporting}, true},
	} {
		if got := decided(tc.out); got != tc.want {
			t.Errorf("%s: decided %v; want %v", name, got, tc.want)
		}
	}
}

// choose keeps a tool reporting progress and still working (the highest
// ranked, then the first to report), else one still working, else the
// slowest that answered; never one that answers too soon to be cancelled.
func TestChooseKeepsTheBestProbedTool(t *testing.T) {
	p := func(name string, score int, progress, took time.Duration, ended bool) probed {
		g := probedTool(t, name, score)
		g.firstProgress, g.took, g.ended = progress, took, ended
		return g
	}
	failed := p("failed", 9, 10*time.Millisecond, 0, false)
	failed.err = errors.New("boom")
	ms := time.Millisecond
	for name, tc := range map[string]struct {
		got      []probed
		want     string // "" for none
		duration time.Duration
		why      string
	}{
		"progress beats silence":             {[]probed{p("quiet", 3, 0, 0, false), p("talks", 2, 50*ms, 0, false)}, "talks", 0, "it reports progress (first after 50ms)"},
		"silence after progress":             {[]probed{p("talks", 2, 50*ms, 0, false), p("quiet", 3, 0, 0, false)}, "talks", 0, "it reports progress"},
		"the higher score":                   {[]probed{p("a", 2, 30*ms, 0, false), p("b", 3, 60*ms, 0, false)}, "b", 0, "first after 60ms"},
		"a lower score":                      {[]probed{p("a", 3, 60*ms, 0, false), p("b", 2, 30*ms, 0, false)}, "a", 0, "first after 60ms"},
		"the first to report":                {[]probed{p("a", 2, 60*ms, 0, false), p("b", 2, 30*ms, 0, false)}, "b", 0, "first after 30ms"},
		"a tie, to the first listed":         {[]probed{p("a", 2, 30*ms, 0, false), p("b", 2, 30*ms, 0, false)}, "a", 0, "first after 30ms"},
		"an answer tie, to the first":        {[]probed{p("a", 0, 0, time.Second, true), p("b", 0, 0, time.Second, true)}, "a", time.Second, "answers in 1s"},
		"the first, listed first":            {[]probed{p("a", 2, 30*ms, 0, false), p("b", 2, 60*ms, 0, false)}, "a", 0, "first after 30ms"},
		"working beats answered":             {[]probed{p("done", 3, 0, 2*time.Second, true), p("busy", 0, 0, 0, false)}, "busy", 0, "no progress, still working after 1s"},
		"working beats progress that ended":  {[]probed{p("ended", 2, 50*ms, 2*time.Second, true), p("busy", 0, 0, 0, false)}, "busy", 0, "no progress, still working after 1s"},
		"progress that ended, after working": {[]probed{p("busy", 0, 0, 0, false), p("ended", 2, 50*ms, 2*time.Second, true)}, "busy", 0, "no progress, still working after 1s"},
		"the first still working":            {[]probed{p("busy", 0, 0, 0, false), p("done", 3, 0, 2*time.Second, true), p("busy2", 0, 0, 0, false)}, "busy", 0, "still working"},
		"the slowest answer":                 {[]probed{p("fast", 0, 0, time.Second, true), p("slow", 0, 0, 2*time.Second, true), p("mid", 0, 0, 1500*ms, true)}, "slow", 2 * time.Second, "no progress, answers in 2s"},
		"answers at the edge":                {[]probed{p("edge", 0, 0, 2*cancelDelay, true)}, "edge", 2 * cancelDelay, "answers in 600ms"},
		"answers too soon":                   {[]probed{p("quick", 0, 0, 2*cancelDelay-ms, true)}, "", 0, ""},
		"a failure is never kept":            {[]probed{failed, p("quiet", 0, 0, 0, false)}, "quiet", 0, "picked from a probe of failed, quiet; no progress"},
		"only failures":                      {[]probed{failed}, "", 0, ""},
	} {
		r := &runner{opts: Options{ProbeWindow: time.Second}}
		r.choose(tc.got, "")
		switch {
		case tc.want == "" && r.tool != nil:
			t.Errorf("%s: chose %s; want none", name, r.tool.Name)
		case tc.want == "":
		case r.tool == nil:
			t.Errorf("%s: chose none; want %s", name, tc.want)
		case r.tool.Name != tc.want || r.duration != tc.duration || !strings.Contains(r.tool.Why, tc.why) ||
			!strings.HasPrefix(r.tool.Why, "picked from a probe of ") ||
			r.tool.Progress != strings.Contains(r.tool.Why, "reports progress"):
			t.Errorf("%s: chose %s (duration %s, progress %v, %q); want %s (duration %s, %q)", name, r.tool.Name, r.duration, r.tool.Progress, r.tool.Why,
				tc.want, tc.duration, tc.why)
		}
	}
}

// With no tool that looks slow, every callable one is a candidate; with
// no tools, none.
func TestCandidatesWithoutASlowOneKeepsThemAll(t *testing.T) {
	got := candidates(parseTools(t, `{"name":"echo"}`, `{"name":"add"}`))
	if len(got) != 2 || got[0].tool.Name != "echo" || got[1].tool.Name != "add" {
		t.Errorf("candidates %v; want echo and add", got)
	}
	if got := candidates(nil); len(got) != 0 {
		t.Errorf("candidates of no tools %v; want none", got)
	}
}

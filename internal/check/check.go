// Package check grades how a server handles cancellation (mcpoke check):
// each check names the spec sentence it tests, with its level (MUST,
// SHOULD, MAY) and the versions that have it, runs against a connected
// server, and keeps the evidence (times, frames, counts) a QA engineer
// can file. It reads the session's events and request table; it never
// parses frames itself.
package check

import (
	"encoding/json"
	"fmt"
	"time"
)

// Level is the force of a spec sentence.
type Level string

const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
	May    Level = "MAY"
)

// Status is a check's grade. Fail is kept for a broken MUST; a broken
// SHOULD or MAY is a warning.
type Status string

const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Rule is a spec sentence a check tests.
type Rule struct {
	Level    Level    `json:"level"`
	Sentence string   `json:"sentence"`
	Spec     string   `json:"spec"` // the page and section it is on
	Versions []string `json:"versions"`
}

// Result is one check's grade and the evidence for it.
type Result struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	// Rule is the sentence the status rests on: the check's own, or a
	// MUST the server broke on the way (the connection died).
	Rule
	Status Status `json:"status"`
	// Conformance names the conformance suite's scenarios that test the
	// same behaviour, so that a team running both can map one to the other.
	Conformance []string `json:"conformance,omitempty"`
	// NotApplicable marks a skip for a feature the server or transport
	// does not have (tasks, HTTP, a process to meter): --strict allows it.
	NotApplicable bool `json:"notApplicable,omitempty"`
	// Reason says why a check was skipped.
	Reason   string   `json:"reason,omitempty"`
	Evidence Evidence `json:"evidence"`
	// Ms is how long the check ran.
	Ms float64 `json:"ms"`
}

// Evidence is what the check saw: facts in words, the counts and times
// they rest on, and the first few frames that decided the grade.
type Evidence struct {
	Facts   []string           `json:"facts"`
	Counts  map[string]int     `json:"counts,omitempty"`
	TimesMs map[string]float64 `json:"timesMs,omitempty"`
	Frames  []Frame            `json:"frames,omitempty"`
}

// Frame is one frame kept as evidence, with what it was.
type Frame struct {
	Note  string `json:"note"`
	Frame string `json:"frame"`
}

// maxFrames bounds the frames one check keeps; counts go on.
const maxFrames = 5

// maxFrameBytes bounds the text kept of one frame.
const maxFrameBytes = 300

func (e *Evidence) fact(format string, a ...any) {
	e.Facts = append(e.Facts, fmt.Sprintf(format, a...))
}

func (e *Evidence) count(name string, n int) {
	if e.Counts == nil {
		e.Counts = map[string]int{}
	}
	e.Counts[name] = n
}

func (e *Evidence) time(name string, d time.Duration) {
	if e.TimesMs == nil {
		e.TimesMs = map[string]float64{}
	}
	e.TimesMs[name] = ms(d)
}

func (e *Evidence) frame(note string, data []byte) {
	if len(e.Frames) >= maxFrames {
		return
	}
	text := string(data)
	if len(text) > maxFrameBytes {
		text = text[:maxFrameBytes] + "…"
	}
	e.Frames = append(e.Frames, Frame{Note: note, Frame: text})
}

// ms is d in milliseconds, to a tenth.
func ms(d time.Duration) float64 {
	return float64(d.Round(100*time.Microsecond)) / float64(time.Millisecond)
}

// Report is the whole run.
type Report struct {
	Server    Server   `json:"server"`
	Protocol  string   `json:"protocol"`
	Transport string   `json:"transport"`
	Tool      *Tool    `json:"tool"`
	Checks    []Result `json:"checks"`
	Summary   Summary  `json:"summary"`
	// Ms is how long the whole run took.
	Ms float64 `json:"ms"`
}

// Server is what the server said about itself in initialize.
type Server struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Tool is the tool the checks cancel, and how it was chosen.
type Tool struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	// Progress: the tool reported progress when asked to.
	Progress bool `json:"progress"`
	// Why says how it was chosen.
	Why string `json:"why"`
}

// Summary counts the checks by status.
type Summary struct {
	Pass int `json:"pass"`
	Warn int `json:"warn"`
	Fail int `json:"fail"`
	Skip int `json:"skip"`
	// Ran is how many checks ran (were not skipped) of Selected.
	Ran      int `json:"ran"`
	Selected int `json:"selected"`
	// Missed is how many skipped checks could have run on this server
	// (skipped for a reason other than a feature it lacks).
	Missed int `json:"missed"`
}

// MustFailed reports whether a MUST was broken: mcpoke check exits 1.
func (r *Report) MustFailed() bool { return r.Summary.Fail > 0 }

func (r *Report) summarize() {
	r.Summary = Summary{}
	for _, c := range r.Checks {
		switch c.Status {
		case Pass:
			r.Summary.Pass++
		case Warn:
			r.Summary.Warn++
		case Fail:
			r.Summary.Fail++
		case Skip:
			r.Summary.Skip++
			if !c.NotApplicable {
				r.Summary.Missed++
			}
		}
	}
	r.Summary.Selected = len(r.Checks)
	r.Summary.Ran = r.Summary.Selected - r.Summary.Skip
}

// broken is the grade of a check whose sentence rule was broken: only a
// broken MUST fails.
func broken(rule Rule) Status {
	if rule.Level == Must {
		return Fail
	}
	return Warn
}

// human rounds d for reading: to a tenth of a millisecond below 10 ms,
// else to the millisecond.
func human(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// These grade checks 1 and 2 on observations built by hand, so each
// boundary of the grading (the in-flight window, the 9/10 of a call that
// marks an answer as the call's own end) is met exactly, which a real
// server's timing never does on purpose.

var started = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// late is a late frame of kind k that came at into the call, after the
// cancel.
func late(k session.LateKind, at, after time.Duration) session.LateFrame {
	return session.LateFrame{Kind: k, At: started.Add(at), AfterCancel: after, Data: []byte(`{"late":true}`)}
}

// observed is a call started at started, cancelled 1 s in, with frames
// late.
func observed(frames ...session.LateFrame) *cancelObservation {
	info := session.RequestInfo{Started: started, CancelSentAt: started.Add(time.Second), Late: frames, LateCount: len(frames)}
	return &cancelObservation{info: info, listened: time.Second}
}

// A whole call's end is 9/10 of its duration in: an answer from then on
// is the call ending on its own, one before it is the server's reaction.
func TestIgnoredCancelMarksAnAnswerAboutWhenTheCallWouldEnd(t *testing.T) {
	r := &runner{duration: 10 * time.Second}
	info := session.RequestInfo{Started: started}
	if got := r.ignoredCancel(info, late(session.LateResponse, 9*time.Second, time.Second)); !strings.Contains(got, "stopped nothing") {
		t.Errorf("an answer 9 s into a 10 s call: %q; want it marked as the call's own end", got)
	}
	if got := r.ignoredCancel(info, late(session.LateResponse, 8900*time.Millisecond, time.Second)); got != "" {
		t.Errorf("an answer 8.9 s into a 10 s call: %q; want nothing (before 9/10 of the call)", got)
	}
	r.duration = 0
	if got := r.ignoredCancel(info, late(session.LateResponse, 9*time.Second, time.Second)); got != "" {
		t.Errorf("no known duration: %q; want nothing", got)
	}
}

// A frame that comes exactly the window after the cancel crossed it.
func TestInFlightWindowIncludesItsEdge(t *testing.T) {
	w := window{d: 5 * time.Millisecond}
	crossed, after := inFlight(w, []session.LateFrame{
		late(session.LateResponse, time.Second, 5*time.Millisecond),
		late(session.LateResponse, time.Second, 6*time.Millisecond),
	})
	if len(crossed) != 1 || crossed[0].AfterCancel != 5*time.Millisecond || len(after) != 1 || after[0].AfterCancel != 6*time.Millisecond {
		t.Errorf("crossed %v, after %v; want the 5 ms frame crossed, the 6 ms one after", crossed, after)
	}
}

// Within the window, an answer well before the call's end is the
// server's reaction; one at 0 (read before the cancel was written) or
// about the call's end stays crossed.
func TestEarlyAnswersWithinTheWindowAreCounted(t *testing.T) {
	r := &runner{duration: 10 * time.Second}
	info := session.RequestInfo{Started: started}
	crossed := []session.LateFrame{
		late(session.LateResponse, time.Second, time.Millisecond),
		late(session.LateResponse, time.Second, 0),
		late(session.LateResponse, 9*time.Second, time.Millisecond),
		late(session.LateResponse, 8900*time.Millisecond, 2*time.Millisecond),
	}
	var after []session.LateFrame
	stay := r.earlyAnswers(info, crossed, &after)
	if len(after) != 2 || after[0].At != started.Add(time.Second) || after[1].At != started.Add(8900*time.Millisecond) {
		t.Errorf("moved %v; want the answers 1 s and 8.9 s into the call", after)
	}
	if len(stay) != 2 || stay[0].AfterCancel != 0 || stay[1].At != started.Add(9*time.Second) {
		t.Errorf("kept %v; want the one at 0 and the one 9 s in", stay)
	}
	r.duration = 0
	after = nil
	if stay := r.earlyAnswers(info, crossed, &after); len(stay) != len(crossed) || len(after) != 0 {
		t.Errorf("no known duration: kept %d, moved %d; want all kept", len(stay), len(after))
	}
}

func TestGradeNoResponse(t *testing.T) {
	for name, tc := range map[string]struct {
		duration time.Duration
		frames   []session.LateFrame
		status   Status
		counted  int
		within   bool // "counted although within the window"
	}{
		"nothing came": {0, nil, Pass, 0, false},
		"only progress": {0, []session.LateFrame{late(session.LateProgress, 2*time.Second, 20*time.Millisecond)},
			Pass, 0, false},
		"an answer within the window": {0, []session.LateFrame{late(session.LateResponse, time.Second, 5*time.Millisecond)},
			Pass, 0, false},
		"an answer after the window": {0, []session.LateFrame{late(session.LateResponse, 2*time.Second, 20*time.Millisecond)},
			Warn, 1, false},
		"an early answer at the window's edge": {10 * time.Second,
			[]session.LateFrame{late(session.LateResponse, time.Second, 5*time.Millisecond)}, Warn, 1, true},
		"the call's own end within the window": {10 * time.Second,
			[]session.LateFrame{late(session.LateResponse, 9500*time.Millisecond, 5*time.Millisecond)}, Pass, 0, false},
	} {
		r := &runner{duration: tc.duration, opts: Options{Grace: 5 * time.Millisecond}}
		res := Result{Rule: ruleNoResponse}
		r.gradeNoResponse(observed(tc.frames...), &res)
		if res.Status != tc.status || res.Evidence.Counts["responses"] != tc.counted {
			t.Errorf("%s: %s with %d responses counted; want %s with %d (%v)", name, res.Status, res.Evidence.Counts["responses"],
				tc.status, tc.counted, res.Evidence.Facts)
		}
		if got := factContains(res, "counted although within the window"); got != tc.within {
			t.Errorf("%s: says the answer was counted although within the window: %v; want %v (%v)", name, got, tc.within, res.Evidence.Facts)
		}
	}
}

func TestGradeProgressStops(t *testing.T) {
	answer := late(session.LateResponse, 1500*time.Millisecond, 500*time.Millisecond)
	p := func(after time.Duration) session.LateFrame {
		return late(session.LateProgress, time.Second+after, after)
	}
	for name, tc := range map[string]struct {
		before  int
		frames  []session.LateFrame
		status  Status
		rule    Rule
		nFrames int
	}{
		"no progress at all":            {0, nil, Skip, ruleStopWork, 0},
		"progress before, none after":   {3, nil, Pass, ruleStopWork, 0},
		"progress within the window":    {0, []session.LateFrame{p(5 * time.Millisecond)}, Pass, ruleStopWork, 0},
		"one progress after the window": {3, []session.LateFrame{p(20 * time.Millisecond)}, Warn, ruleStopWork, 1},
		"two progress after the window": {3, []session.LateFrame{p(20 * time.Millisecond), p(30 * time.Millisecond)},
			Warn, ruleStopWork, 2},
		"progress after the answer":  {3, []session.LateFrame{answer, p(time.Second)}, Fail, ruleProgressStops, 1},
		"progress before the answer": {3, []session.LateFrame{p(5 * time.Millisecond), answer}, Pass, ruleStopWork, 0},
	} {
		r := &runner{opts: Options{Grace: 5 * time.Millisecond}, watch: &watcher{}}
		o := observed(tc.frames...)
		o.info.ProgressCount = tc.before
		res := Result{Rule: ruleStopWork}
		r.gradeProgressStops(context.Background(), o, &res)
		if res.Status != tc.status || res.Rule.Sentence != tc.rule.Sentence || len(res.Evidence.Frames) != tc.nFrames {
			t.Errorf("%s: %s on %q with %d frames; want %s on %q with %d (%v)", name, res.Status, res.Rule.Sentence,
				len(res.Evidence.Frames), tc.status, tc.rule.Sentence, tc.nFrames, res.Evidence.Facts)
		}
		progress := 0
		for _, f := range tc.frames {
			if f.Kind == session.LateProgress {
				progress++
			}
		}
		if res.Status != Skip && res.Evidence.Counts["progressAfter"] != progress {
			t.Errorf("%s: progressAfter %d; want %d", name, res.Evidence.Counts["progressAfter"], progress)
		}
	}
}

// Check 1 listens Options.Listen after the cancel, and when the call's
// run time is known, until a second past when it would have ended.
func TestListenUntilWaitsOutAKnownCall(t *testing.T) {
	info := session.RequestInfo{Started: started, CancelSentAt: started.Add(300 * time.Millisecond)}
	r := &runner{opts: Options{Listen: 300 * time.Millisecond}}
	if got := r.listenUntil(info); !got.Equal(started.Add(600 * time.Millisecond)) {
		t.Errorf("run time unknown: listens until %s in; want 600ms (Listen after the cancel)", got.Sub(started))
	}
	r.duration = 2 * time.Second
	if got := r.listenUntil(info); !got.Equal(started.Add(3 * time.Second)) {
		t.Errorf("a 2 s call: listens until %s in; want 3s (its end and a second)", got.Sub(started))
	}
	r.opts.Listen = 5 * time.Second
	if got := r.listenUntil(info); !got.Equal(started.Add(5300 * time.Millisecond)) {
		t.Errorf("a 2 s call, Listen 5 s: listens until %s in; want 5.3s", got.Sub(started))
	}
}

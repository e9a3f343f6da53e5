package check

import (
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// After a drop the run waits for the rest of a whole call and 2 s for
// the reconnect, never past the call timeout; without a known duration,
// the call timeout.
func TestResumeWaitIsTheRestOfTheCall(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		duration, ago, timeout time.Duration
		low, high              time.Duration
	}{
		{0, 0, 10 * s, 10 * s, 10 * s},
		{s, s / 2, 10 * s, 2*s + s/2 - 100*time.Millisecond, 2*s + s/2},
		{s, 5 * s, 10 * s, 2 * s, 2 * s},
		{4 * s, 0, 3 * s, 3 * s, 3 * s},
	} {
		r := &runner{duration: tc.duration, opts: Options{CallTimeout: tc.timeout}}
		if got := r.resumeWait(time.Now().Add(-tc.ago)); got < tc.low || got > tc.high {
			t.Errorf("a %s call started %s ago, call timeout %s: wait %s; want %s to %s", tc.duration, tc.ago, tc.timeout, got, tc.low, tc.high)
		}
	}
}

// The dropped stream's facts say how long a whole call takes, when
// known, and how much progress came after the drop, for a tool that
// reports it.
func TestDroppedStreamFactsSayWhatIsKnown(t *testing.T) {
	r := &runner{tool: &Tool{Progress: true}}
	if got := r.wholeCall(); got != "" {
		t.Errorf("whole call of unknown duration %q; want nothing", got)
	}
	r.duration = 1500 * time.Millisecond
	if got := r.wholeCall(); got != " (a whole call takes about 1.5s)" {
		t.Errorf("whole call %q", got)
	}
	for n, want := range map[int]string{1: ", with 1 progress notification after the drop", 3: ", with 3 progress notifications after the drop",
		0: ", with 0 progress notifications after the drop"} {
		if got := r.progressSince(session.RequestInfo{ProgressCount: 4 + n}, 4); got != want {
			t.Errorf("progress since: %q; want %q", got, want)
		}
	}
	r.tool.Progress = false
	if got := r.progressSince(session.RequestInfo{ProgressCount: 5}, 4); got != "" {
		t.Errorf("progress since, for a tool that reports none: %q; want nothing", got)
	}
}

// How a request's POST was answered is quoted from the wire, for that
// request only.
func TestPostAnswerQuotesThatRequestsPOST(t *testing.T) {
	records := []wire.Record{{Data: []byte("POST tools/call id 17 → 200 OK")}, {Data: []byte("GET id 7 → 200")},
		{Data: []byte("POST tools/call id 7 → 202 Accepted")}}
	if got, ok := postAnswer(records, "7"); !ok || got != "POST tools/call id 7 → 202 Accepted" {
		t.Errorf("POST of 7: %q, %v", got, ok)
	}
	if got, ok := postAnswer(records, "8"); ok {
		t.Errorf("POST of 8: %q; want none", got)
	}
}

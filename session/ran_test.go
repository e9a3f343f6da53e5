package session

import (
	"testing"
	"time"
)

// A cancelled request ran until its cancel was written; the settle window
// after that is its own figure, not part of the run.
func TestRanStopsAtTheCancelWrite(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, tc := range []struct {
		name    string
		info    RequestInfo
		ran     time.Duration
		settled time.Duration
		ok      bool
	}{
		{"cancelled", RequestInfo{State: Cancelled, Started: t0, CancelAt: at(1400), CancelSentAt: at(1500), Ended: at(2500)},
			1500 * time.Millisecond, time.Second, true},
		{"cancelling", RequestInfo{State: Cancelling, Started: t0, CancelAt: at(1400), CancelSentAt: at(1500)},
			1500 * time.Millisecond, 0, false},
		{"cancel not yet written", RequestInfo{State: Cancelling, Started: t0, CancelAt: at(1400)},
			3 * time.Second, 0, false},
		{"completed", RequestInfo{State: Completed, Started: t0, Ended: at(700)}, 700 * time.Millisecond, 0, false},
		{"timed out", RequestInfo{State: TimedOut, Started: t0, CancelAt: at(900), CancelSentAt: at(900), Ended: at(900)},
			900 * time.Millisecond, 0, false},
	} {
		if got := tc.info.Ran(at(3000)); got != tc.ran {
			t.Errorf("%s: Ran = %v, want %v", tc.name, got, tc.ran)
		}
		got, ok := tc.info.Settled()
		if got != tc.settled || ok != tc.ok {
			t.Errorf("%s: Settled = %v, %v; want %v, %v", tc.name, got, ok, tc.settled, tc.ok)
		}
	}
}

package rows

import (
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// When the store drops its oldest finished rows, the header's totals
// stay exact and the store says how many rows it left out.
func TestStoreCountsStayExactPastTheCap(t *testing.T) {
	s := NewStore()
	s.Keep = 10
	for i := range 100 {
		seq := uint64(i + 1)
		s.started(session.RequestInfo{Seq: seq, ID: session.IntID(int64(seq)), Method: "ping", Started: time.Unix(0, 0)})
		s.stateChanged(session.StateChanged{Ref: session.Ref{Seq: seq, ID: session.IntID(int64(seq))}, From: session.Pending, To: session.Completed})
		s.Trim() // as each batch of events does
	}
	if got := s.Counts[session.Completed]; got != 100 {
		t.Errorf("header total %d completed, want 100", got)
	}
	if s.Len()+s.Dropped != 100 || s.Dropped == 0 {
		t.Errorf("kept %d, dropped %d, want 100 in all with some dropped", s.Len(), s.Dropped)
	}
}

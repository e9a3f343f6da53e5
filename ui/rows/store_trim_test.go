package rows

import (
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// finish adds a request of n that started and completed.
func finish(s *Store, n uint64) {
	s.Apply(session.RequestStarted{Info: session.RequestInfo{Seq: n, ID: session.IntID(int64(n)), Method: "ping", State: session.Pending, Started: t0}})
	s.Apply(session.StateChanged{Ref: session.Ref{Seq: n, ID: session.IntID(int64(n))}, From: session.Pending, To: session.Completed, At: at(1)})
}

// Trim lets finished rows gather up to a quarter past Keep, then drops
// the oldest back to Keep, and says so; the counts of rows it dropped
// stay in the header's totals. Rows still running are never dropped.
func TestTrimKeepsTheNewestBackToKeep(t *testing.T) {
	s := NewStore()
	s.Keep = 8 // trims past 10
	s.Apply(session.RequestStarted{Info: session.RequestInfo{Seq: 100, ID: session.IntID(100), Method: "tools/call", State: session.Pending}})
	for n := uint64(1); n <= 10; n++ {
		finish(s, n)
	}
	if s.Trim() || s.Len() != 11 {
		t.Fatalf("10 finished rows with Keep 8: trimmed to %d rows; want none dropped before a quarter past Keep", s.Len())
	}
	finish(s, 11)
	if !s.Trim() {
		t.Fatal("11 finished rows with Keep 8: Trim dropped nothing")
	}
	checkKept(t, s, 4, 11, 3)
	// The next round counts from Keep again.
	finish(s, 12)
	finish(s, 13)
	if s.Trim() || s.Len() != 11 {
		t.Fatalf("10 finished rows again: trimmed to %d rows; want none dropped", s.Len())
	}
	finish(s, 14)
	if !s.Trim() {
		t.Fatal("11 finished rows again: Trim dropped nothing")
	}
	checkKept(t, s, 7, 14, 6)
	if s.Counts[session.Completed] != 14 || s.Counts[session.Pending] != 1 {
		t.Errorf("counts %v, want 14 completed and 1 pending: dropped rows stay counted", s.Counts)
	}
}

// checkKept checks that s holds the running request 100 and the finished
// rows from..to, in order, having dropped dropped.
func checkKept(t *testing.T, s *Store, from, to uint64, dropped int) {
	t.Helper()
	if s.Get(100) == nil || s.Rows[0].Seq != 100 {
		t.Error("the running request was dropped")
	}
	var seqs []uint64
	for _, r := range s.Rows[1:] {
		seqs = append(seqs, r.Seq)
	}
	if len(seqs) != int(to-from+1) || seqs[0] != from || seqs[len(seqs)-1] != to || s.Dropped != dropped {
		t.Fatalf("kept %v, dropped %d; want %d..%d, %d dropped", seqs, s.Dropped, from, to, dropped)
	}
	if s.Get(from-1) != nil || s.Get(from) == nil {
		t.Errorf("index: #%d still found, or #%d lost", from-1, from)
	}
}

// A request that starts already finished (a task already over) counts
// as finished, so Trim drops it like any other.
func TestTrimCountsRowsThatStartFinished(t *testing.T) {
	s := NewStore()
	s.Keep = 4
	for n := uint64(1); n <= 6; n++ {
		s.Apply(session.RequestStarted{Info: session.RequestInfo{Seq: n, ID: session.IntID(int64(n)), Method: "tools/call", State: session.Completed}})
	}
	if !s.Trim() || s.Len() != 4 || s.Rows[0].Seq != 3 {
		t.Errorf("6 rows that started completed, Keep 4: %d kept from #%d; want the newest 4", s.Len(), s.Rows[0].Seq)
	}
}

// Rows are ordered by arrival, which the request table sorts and
// searches by.
func TestRowsOrderByArrival(t *testing.T) {
	s := NewStore()
	for n := uint64(1); n <= 3; n++ {
		finish(s, n)
	}
	s.Apply(session.StrayArrived{Kind: session.LateResponse, ID: session.IntID(9), At: at(5)})
	for i := 1; i < s.Len(); i++ {
		if a, b := s.Rows[i-1].Ord(), s.Rows[i].Ord(); a >= b {
			t.Errorf("row %d has order %d, after row %d's %d: the table would sort them backwards", i, b, i-1, a)
		}
	}
}

// Stray rows are finished rows: Trim drops the oldest of them too, and
// stray progress for a token whose row went gets a row again.
func TestTrimDropsStrayRows(t *testing.T) {
	s := NewStore()
	s.Keep = 4
	s.Apply(session.StrayArrived{Kind: session.LateProgress, ID: session.IntID(1), Token: "tok", At: at(0)})
	for i := range 5 {
		s.Apply(session.StrayArrived{Kind: session.LateResponse, ID: session.IntID(int64(i + 2)), At: at(i + 1)})
	}
	if !s.Trim() || s.Len() != 4 || s.Rows[0].ID != session.IntID(3) {
		t.Fatalf("6 stray rows, Keep 4: Trim kept %d from %v; want the newest 4", s.Len(), s.Rows[0].ID)
	}
	s.Apply(session.StrayArrived{Kind: session.LateProgress, ID: session.IntID(1), Token: "tok", At: at(9)})
	if r := s.Rows[s.Len()-1]; s.Len() != 5 || r.Stray.Token != "tok" || r.Stray.Count != 1 {
		t.Errorf("stray progress for a dropped row's token: %d rows, newest %+v; want a row of its own", s.Len(), r.Stray)
	}
}

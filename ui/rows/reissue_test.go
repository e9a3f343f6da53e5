package rows

import (
	"errors"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

func startedCall(seq uint64, id int64) session.RequestStarted {
	return session.RequestStarted{Info: session.RequestInfo{Seq: seq, ID: session.IntID(id), Method: "tools/call", Tool: "sleep", Started: t0}}
}

// lose gives row seq the session's record of a request lost with its
// stream.
func lose(s *Store, seq uint64, id int64) {
	s.SetInfo(seq, session.RequestInfo{Seq: seq, ID: session.IntID(id), State: session.Failed, LostAt: at(5), Failure: "lost"})
}

// A lost row is re-issued once; the link reaches the new row whether its
// RequestStarted came before the send's answer or after it; a lost
// re-issue is not re-issued by itself, nor is a row that was not lost.
func TestReissueLinksTheLostRowAndItsReissue(t *testing.T) {
	for _, startedFirst := range []bool{true, false} {
		s := NewStore()
		s.Apply(startedCall(1, 3))
		if s.StartReissue(1) {
			t.Fatal("a row that was not lost is re-issued")
		}
		lose(s, 1, 3)
		if !s.StartReissue(1) {
			t.Fatal("a lost row is not re-issued")
		}
		if s.StartReissue(1) {
			t.Fatal("a lost row is re-issued twice")
		}
		if startedFirst {
			s.Apply(startedCall(2, 4))
		}
		s.Reissued(1, 2, session.IntID(4), nil)
		if !startedFirst {
			s.Apply(startedCall(2, 4))
		}
		lost, again := s.Get(1), s.Get(2)
		if lost.Reissue == nil || lost.Reissue.As != session.IntID(4) {
			t.Fatalf("started first %v: the lost row's link is %+v, want As 4", startedFirst, lost.Reissue)
		}
		if again.Reissue == nil || again.Reissue.Of != session.IntID(3) {
			t.Fatalf("started first %v: the new row's link is %+v, want Of 3", startedFirst, again.Reissue)
		}
		if len(s.reissues) != 0 {
			t.Errorf("started first %v: %d pending links left", startedFirst, len(s.reissues))
		}
		lose(s, 2, 4)
		if s.StartReissue(2) {
			t.Errorf("started first %v: a lost re-issue is re-issued again", startedFirst)
		}
	}
}

// A re-issue that could not be sent says why on the lost row.
func TestReissueThatFailedToSend(t *testing.T) {
	s := NewStore()
	s.Apply(startedCall(1, 3))
	lose(s, 1, 3)
	s.StartReissue(1)
	s.Reissued(1, 0, session.ID{}, errors.New("connection closed"))
	if r := s.Get(1); r.Reissue == nil || r.Reissue.Failed != "connection closed" || !r.Reissue.As.IsZero() {
		t.Fatalf("link %+v, want the send's failure", r.Reissue)
	}
}

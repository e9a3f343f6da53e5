package rows

import (
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// A flood after the cancel costs a row at most rowLateFrames frames; the
// rest are only counted.
func TestRowKeepsTheFirstLateFrames(t *testing.T) {
	s, _ := apply(t, started1, cancelling1, sent1, cancelled1)
	for i := range rowLateFrames + 10 {
		s.Apply(late1(session.LateResponse, 1000+i))
	}
	l := s.Get(1).Late
	if len(l.Frames) != rowLateFrames || l.Responses != rowLateFrames+10 || !l.Frames[0].At.Equal(at(1000)) {
		t.Errorf("row keeps %d frames from %v, counts %d; want the first %d of %d", len(l.Frames), l.Frames[0].At,
			l.Responses, rowLateFrames, rowLateFrames+10)
	}
}

// Answers past the one a request took are counted on its row.
func TestDuplicatesAreCounted(t *testing.T) {
	s, _ := apply(t, started1)
	v := s.Get(1).Version()
	s.Duplicated(1, 2)
	s.Duplicated(1, 1)
	if r := s.Get(1); r.Duplicates != 3 || r.Version() == v {
		t.Errorf("%d duplicates (version %d, was %d), want 3 and a new version", r.Duplicates, r.Version(), v)
	}
	if s.Duplicated(5, 1) != nil {
		t.Error("a duplicate for an unknown request made a row")
	}
}

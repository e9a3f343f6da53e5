package rows

import "github.com/mcpoke/mcpoke/session"

// Reissue links a request lost with its 2026-07-28 response stream and
// the request mcpoke sent again for it under a new id.
type Reissue struct {
	// Of is set on the new row: the lost request's id.
	Of session.ID
	// As is set on the lost row once the new request was sent; until then
	// the re-issue is under way.
	As session.ID
	// Failed says why the new request could not be sent.
	Failed string
}

// StartReissue marks the lost row seq as being re-issued and reports
// whether it should be: a row re-issues once, and a re-issue that is
// lost again is not re-issued by itself.
func (s *Store) StartReissue(seq uint64) bool {
	r := s.bySeq[seq]
	if r == nil || !r.Lost() || r.Reissue != nil || r.Incoming {
		return false
	}
	r.Reissue = &Reissue{}
	r.Touch()
	return true
}

// Reissued links the lost row seq to the new request again (its row,
// when it has one yet, and its id), or records why it could not be sent.
func (s *Store) Reissued(seq, again uint64, id session.ID, err error) {
	r := s.bySeq[seq]
	if r == nil || r.Reissue == nil {
		return
	}
	if err != nil {
		r.Reissue.Failed = err.Error()
	} else {
		r.Reissue.As = id
	}
	r.Touch()
	if err != nil || again == 0 {
		return
	}
	link := &Reissue{Of: r.ID}
	if n := s.bySeq[again]; n != nil {
		n.Reissue = link
		n.Touch()
		return
	}
	if s.reissues == nil {
		s.reissues = map[uint64]*Reissue{}
	}
	s.reissues[again] = link // its RequestStarted is still in the feed
}

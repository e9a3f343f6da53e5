package session

import "encoding/json"

// Shed replaces what the session keeps of request ref's params and
// result (in its row and its Call) with what keep returns for each, to
// let go of large bodies no longer needed, such as the requestState of a
// multi round-trip request's earlier rounds. keep must return a new
// slice, or its argument unchanged; it runs under the session's lock.
// Snapshots taken before (RequestInfo, Call.Result) keep what they had.
// It reports whether the table still keeps ref.
func (s *Session) Shed(ref Ref, keep func(json.RawMessage) json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.table.find(ref)
	if r == nil {
		return false
	}
	if r.info.Params != nil {
		r.info.Params = keep(r.info.Params)
	}
	if r.info.Result != nil {
		r.info.Result = keep(r.info.Result)
	}
	if r.call != nil && r.info.State.Final() {
		if res := r.call.resultNow(); res != nil {
			res = keep(res)
			r.call.result.Store(&res)
		}
	}
	return true
}

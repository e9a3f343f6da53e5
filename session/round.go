package session

// Round links a retry of a multi round-trip request (protocol 2026-07-28)
// to the request it retries: the server answered that one input_required,
// and this new request, under a new id, carries the answers. The zero
// Round is a request of its own.
type Round struct {
	// N is this request's round: 2 for the first retry.
	N int
	// First is the original request of round 1.
	First Ref
}

// Retry reports whether the request is a later round of another.
func (r Round) Retry() bool { return r.N > 1 }

package check

// ownRequests is check 9, skipped until mcpoke check provokes and
// grades the server's own requests.
func (r *runner) ownRequests(res *Result) {
	res.Status = Skip
	if n := r.watch.incomingRequests(); n > 0 {
		res.Reason = "the server sent requests of its own, but mcpoke check does not grade how it cancels them yet"
		return
	}
	res.Reason = "the server sent no requests of its own during the run"
}

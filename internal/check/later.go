package check

import "github.com/mcpoke/mcpoke/internal/mcp"

// tasks is check 7, skipped until mcpoke check speaks tasks/cancel.
func (r *runner) tasks(res *Result) {
	res.Status = Skip
	caps, err := mcp.ParseServerCapabilities(r.conn.Peer().Capabilities)
	if err != nil || caps.Tasks == nil {
		res.Reason = "the server has no tasks (it declares no tasks capability)"
		return
	}
	res.Reason = "the server has tasks, but mcpoke check does not test tasks/cancel yet"
}

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

package check

import (
	"context"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// healthy is check 3: after a cancelled call the server still answers a
// ping and a new request.
func (r *runner) healthy(ctx context.Context, res *Result) {
	e := &res.Evidence
	if r.tool != nil {
		if o := r.observeCancel(ctx); o.notCancelled == "" {
			e.fact("after the cancel of request %s (%s)", o.info.ID, r.tool.Name)
		} else {
			e.fact("no call could be cancelled (%s); the connection alone is checked", o.notCancelled)
		}
	} else {
		e.fact("no call to cancel (%s); the connection alone is checked", r.noTool)
	}
	if r.failDead(res, "after the cancel") {
		return
	}
	rtt, err := r.ping(ctx)
	if err != nil {
		res.Status = Fail
		e.fact("%s", r.pingFailed(err))
		r.failDeadAfterError(res, "")
		return
	}
	e.time("ping", rtt)
	e.fact("%s answered in %s", mcp.PingMethod(r.s), human(rtt))
	if declaresTools(r.conn.Peer()) {
		begin := time.Now()
		lctx, cancel := context.WithTimeout(ctx, r.pingTimeout())
		list, err := mcp.ListTools(lctx, r.s, mcp.ListOptions{Timeout: r.pingTimeout()})
		cancel()
		if err != nil {
			res.Status = Fail
			e.fact("tools/list got no answer: %v", err)
			r.failDeadAfterError(res, "")
			return
		}
		e.time("toolsList", time.Since(begin))
		e.fact("tools/list answered in %s (%d %s)", human(time.Since(begin)), len(list.Tools), plural(len(list.Tools), "tool", "tools"))
	}
	res.Status = Pass
	if n, first := r.watch.unsent(); n > 0 {
		// mcpoke's ids are drawn at random, so no check took these for
		// the answer to one of its calls.
		e.count("answersToIDsNeverSent", n)
		e.fact("%d %s named ids mcpoke never sent (forged or misrouted); they answered nothing", n, plural(n, "response", "responses"))
		e.frame("a response to an id mcpoke never sent", first)
	}
}

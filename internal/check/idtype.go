package check

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// wrongIDType is check 5: a cancel whose requestId is the string "N"
// while request N (a number) is in flight must not stop request N, which
// completes normally. Ids keep their JSON type: "N" names no request.
func (r *runner) wrongIDType(ctx context.Context, res *Result) {
	e := &res.Evidence
	c, err := r.call(ctx)
	if err != nil {
		res.Status, res.Reason = Skip, "tools/call could not be sent: "+err.Error()
		return
	}
	ref := c.Ref()
	if !r.underway(ctx, c) {
		res.Status, res.Reason = Skip, "the call ended before the cancel could be sent"
		return
	}
	wrong := session.StringID(c.ID().String())
	before, _ := r.s.Request(ref).Info()
	sentAt := time.Now()
	r.sentRawCancel("for %s (a string, while request %s ran)", wrong, c.ID())
	if err := r.s.Notify("notifications/cancelled", map[string]any{"requestId": wrong, "reason": cancelReason}); err != nil {
		res.Status, res.Reason = Skip, "the cancel could not be sent: "+err.Error()
		return
	}
	e.fact("called %s (request %s), then sent a cancel for %s, a string, after %s", r.tool.Name, c.ID(), wrong,
		human(sentAt.Sub(before.Started)))
	t := time.NewTimer(r.opts.CallTimeout)
	defer t.Stop()
	select {
	case <-c.Done():
	case <-t.C:
	case <-ctx.Done():
	}
	info, _ := r.s.Request(ref).Info()
	e.count("progressBeforeCancel", before.ProgressCount)
	e.count("progressAfterCancel", info.ProgressCount-before.ProgressCount)
	switch info.State {
	case session.Completed:
		res.Status = Pass
		r.duration = info.Ended.Sub(info.Started)
		e.time("completedIn", r.duration)
		e.fact("request %s completed normally %s after the wrong-typed cancel", c.ID(), human(info.Ended.Sub(sentAt)))
	case session.Failed:
		if info.Error == nil && r.failDeadAfterError(res, "after the cancel for "+wrong.String()) {
			return // it died on the cancel: no answer of the server's failed it
		}
		res.Status = Warn
		why := info.Failure
		if info.Error != nil {
			why = info.Error.Error()
		}
		e.fact("request %s failed after the cancel for %s: %s; the server may have taken %s for %s", c.ID(), wrong, why, wrong, c.ID())
	default:
		if r.failDead(res, "after the cancel for "+wrong.String()) {
			return
		}
		res.Status = Warn
		e.fact("request %s got no answer within %s of the cancel for %s (%d progress after it): the server took %s for %s",
			c.ID(), r.opts.CallTimeout, wrong, info.ProgressCount-before.ProgressCount, wrong, c.ID())
		_ = r.s.Request(ref).Cancel(fmt.Sprintf("mcpoke check: no answer within %s", r.opts.CallTimeout))
	}
}

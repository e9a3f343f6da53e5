package check

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// unknownID is a request id this run never uses.
const unknownID = 987654321

// invalidCancel is one cancel the server should ignore.
type invalidCancel struct {
	what   string
	params any
}

// invalidCancels is check 4: cancels for an unknown id, for a finished
// request and malformed ones get no answer and leave the connection up.
func (r *runner) invalidCancels(ctx context.Context, res *Result) {
	e := &res.Evidence
	finished, err := mcp.StartPing(ctx, r.s, r.pingTimeout())
	if err != nil {
		res.Rule, res.Status = ruleGraceful, Fail
		e.fact("could not send ping: %v", err)
		r.failDeadAfterError(res, "")
		return
	}
	if _, _, err := finished.Result(); err != nil {
		res.Rule, res.Status = ruleGraceful, Fail
		e.fact("%s", r.pingFailed(err))
		r.failDeadAfterError(res, "")
		return
	}
	cancels := []invalidCancel{
		{"unknown id", map[string]any{"requestId": unknownID, "reason": cancelReason}},
		{fmt.Sprintf("finished request %s (a %s)", finished.ID(), mcp.PingMethod(r.s)), map[string]any{"requestId": finished.ID(), "reason": cancelReason}},
		{"malformed: requestId is an object", json.RawMessage(`{"requestId":{"x":1}}`)},
		{"malformed: no requestId", json.RawMessage(`{"reason":"mcpoke check: no requestId"}`)},
	}
	answered := 0
	for _, c := range cancels {
		from := time.Now()
		r.sentRawCancel("(%s)", c.what)
		if err := r.s.Notify("notifications/cancelled", c.params); err != nil {
			e.fact("%s: could not be sent: %v", c.what, err)
			break
		}
		if r.failDead(res, "after a cancel for "+c.what) {
			return
		}
		if _, err := r.ping(ctx); err != nil {
			// The server stopped answering after a cancel it should have
			// ignored: the broken sentence is the MUST to handle it.
			res.Rule, res.Status = ruleGraceful, Fail
			e.fact("after a cancel for %s: %s", c.what, r.pingFailed(err))
			r.failDeadAfterError(res, "after a cancel for "+c.what)
			return
		}
		strays, noise := r.watch.since(from)
		for _, s := range strays {
			answered++
			e.frame(fmt.Sprintf("%s answering the cancel for %s", s.Kind, c.what), s.Data)
		}
		for _, n := range noise {
			answered++
			e.frame(fmt.Sprintf("malformed message after the cancel for %s (%s)", c.what, n.Why), n.Line)
		}
		if len(strays)+len(noise) == 0 {
			e.fact("%s: ignored, and %s still answered", c.what, mcp.PingMethod(r.s))
		} else {
			e.fact("%s: answered with %d message(s) (JSON-RPC forbids answering a notification)", c.what, len(strays)+len(noise))
		}
	}
	e.count("cancelsSent", len(cancels))
	e.count("answered", answered)
	if answered > 0 {
		res.Status = Warn
		return
	}
	res.Status = Pass
}

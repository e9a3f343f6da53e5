package check

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// Progress is absent without a token (the conformance suite's proposed
// progress-notifications scenario): check 2 calls the tool once without
// a progressToken, as long as it took to report progress when it had
// one, and counts the progress that came for that call all the same.
// A server has no token to name then: it names the request's id (found
// here) or one it made up (counted with the progress for tokens mcpoke
// never sent).

// tokenlessWatch bounds the watch of the call without a token.
const (
	tokenlessMin = 300 * time.Millisecond
	tokenlessMax = 3 * time.Second
)

// tokenlessSeen is what the call without a token showed.
type tokenlessSeen struct {
	what     string
	progress []session.StrayArrived
}

// tokenlessCall calls the tool without a progressToken and watches it;
// nil when the tool reports no progress even with a token, or the call
// could not be made.
func (r *runner) tokenlessCall(ctx context.Context) *tokenlessSeen {
	if r.tool == nil || !r.tool.Progress {
		return nil
	}
	begin := time.Now()
	c, err := r.s.Call(ctx, "tools/call", r.params, session.CallOptions{NoProgressToken: true})
	if err != nil {
		return nil
	}
	r.waitDone(ctx, c, min(max(3*r.firstProgress, tokenlessMin), tokenlessMax))
	select {
	case <-c.Done():
	default:
		_ = r.s.Request(c.Ref()).Cancel(cancelReason)
	}
	// The ping's answer comes after whatever the server sent before it.
	_, _ = r.ping(ctx)
	return &tokenlessSeen{
		what: fmt.Sprintf("a call of %s without a progressToken (request %s), watched %s (3 × the first progress of a call with one, within %s to %s)",
			r.tool.Name, c.ID(), human(time.Since(begin)), tokenlessMin, tokenlessMax),
		progress: r.watch.progressNaming(c.ID().String(), begin),
	}
}

// gradeTokenless fails res when the tool reported progress for the call
// that gave no token to report it with.
func (r *runner) gradeTokenless(res *Result, seen *tokenlessSeen) {
	if seen == nil {
		return
	}
	n := len(seen.progress)
	res.Evidence.count("progressWithoutToken", n)
	if n == 0 {
		res.Evidence.fact("%s: no progress for it, as none was asked for", seen.what)
		return
	}
	r.worse(res, ruleProgressTokens, "%s: %d progress %s for it all the same, naming its request id as a token it was never given",
		seen.what, n, plural(n, "notification", "notifications"))
	res.Evidence.frame("progress for a call without a progressToken", seen.progress[0].Data)
}

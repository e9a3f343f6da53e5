package check

import (
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// crossingAnswer is mcpoke's answer to a server's request after the
// call that asked it was cancelled (check 9): the last thing mcpoke sent
// that a server may die on, after the cancels.
type crossingAnswer struct {
	id session.ID
	at time.Time
	// cancelled: the server had cancelled its request first.
	cancelled bool
}

// sentCancel is a notifications/cancelled a check wrote itself, not
// through a request's Cancel (checks 4 and 5): the session's events do
// not tell it.
type sentCancel struct {
	what string // "for an unknown id", `for "12" (a string, while request 12 ran)`
	at   time.Time
}

// sentRawCancel notes a cancel a check writes itself, before it goes.
func (r *runner) sentRawCancel(format string, a ...any) {
	r.rawCancel = &sentCancel{what: fmt.Sprintf(format, a...), at: time.Now()}
}

// rootCause says what mcpoke last sent before the connection ended that
// a server may die on: a cancel (of a request, or one a check wrote
// itself), or check 9's answer that crossed the server's own cancel. A
// server that exits on one is told apart from one that crashed for its
// own reasons.
func (r *runner) rootCause() string {
	c := r.watch.cancelBefore()
	raw := r.rawCancel
	if raw != nil && (c == nil || !raw.at.Before(c.At)) && (r.crossing == nil || !raw.at.Before(r.crossing.at)) {
		return fmt.Sprintf(" (it ended after mcpoke's notifications/cancelled %s, %s before this was seen: "+
			"a server that exits on a cancel breaks the MUST to handle the race gracefully)", raw.what, human(time.Since(raw.at)))
	}
	if a := r.crossing; a != nil && (c == nil || !a.at.Before(c.At)) {
		what := "which it had left open when mcpoke cancelled the call that asked it"
		if a.cancelled {
			what = "which it had cancelled"
		}
		return fmt.Sprintf(" (it ended after mcpoke answered the server's request %s, %s, %s before this was seen: "+
			"a server that exits on an answer that crosses its cancel breaks the MUST to handle the race gracefully)", a.id, what, human(time.Since(a.at)))
	}
	if c == nil {
		return " (mcpoke had sent no cancel yet)"
	}
	whose := ""
	if r.probeSeqs[c.Ref.Seq] {
		whose = "the tool probe's call, "
	}
	return fmt.Sprintf(" (it ended after mcpoke cancelled request %s (%sby %s), %s before this was seen: "+
		"a server that exits on a cancel breaks the MUST to handle the race gracefully)", c.Ref.ID, whose, r.cancelWay(c), human(time.Since(c.At)))
}

// cancelWay says how mcpoke cancelled request c. A cancel whose
// CancelSent the session never told (the server died on reading it, and
// the session ended first) has no wire facts: the era and transport of
// the run say how it went.
func (r *runner) cancelWay(c *session.CancelSent) string {
	wire := c.Wire
	if info, ok := r.s.Request(c.Ref).Info(); ok {
		if info.TaskID != "" {
			return "tasks/cancel"
		}
		if info.CancelWire != (session.CancelWire{}) {
			wire = info.CancelWire
		}
	}
	switch {
	case wire.ByStreamClose:
		return "closing its stream"
	case wire.Notified:
		return "its notifications/cancelled"
	case r.conn.Peer().Era2026() && r.conn.Transport() == "http":
		return "closing its stream" // the era's one way over HTTP
	}
	return "its notifications/cancelled"
}

package ui

import (
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// callBounds are the timeouts of a request the UI sends: each ends it
// after so long without an answer or progress, max in all whatever its
// progress (0: the session's default, ten times each; negative: none).
type callBounds struct{ each, max time.Duration }

// options are the session's call options for these bounds.
func (b callBounds) options() session.CallOptions {
	return session.CallOptions{Timeout: b.each, ResetTimeoutOnProgress: true, MaxTimeout: b.max}
}

// bounds are the timeouts of a new request: the timeout key's (or
// Options.Timeout), and Options.MaxTimeout.
func (m *Model) bounds() callBounds { return callBounds{each: m.timeout, max: m.maxTimeout} }

package cli

import (
	"errors"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// timeoutFlags are --timeout and --max-timeout, with the same defaults
// and meaning on every command that sends a request: none waits
// unbounded for a server.
type timeoutFlags struct {
	timeout    time.Duration
	maxTimeout time.Duration
}

// addTimeoutFlags adds --timeout and --max-timeout; each names what
// --timeout bounds in the help ("the call", "each page of the list"),
// all what --max-timeout bounds ("the call", "the whole list").
func addTimeoutFlags(fl *pflag.FlagSet, t *timeoutFlags, each, all string) {
	fl.DurationVar(&t.timeout, "timeout", defaultCallTimeout, "give up on "+each+" after DUR without an answer or progress: it ends timed_out and is cancelled on the wire (0: never)")
	fl.DurationVar(&t.maxTimeout, "max-timeout", defaultMaxTimeout, "give up on "+all+" after DUR in all, whatever progress it makes (0: never)")
}

// checkTimeouts refuses negative timeouts.
func (t timeoutFlags) checkTimeouts() error {
	if t.timeout < 0 || t.maxTimeout < 0 {
		return usageError("durations must not be negative")
	}
	return nil
}

// listOptions are how a list command pages on srv within the timeouts:
// --timeout bounds each page, --max-timeout the whole list. Over
// Streamable HTTP in protocol 2026-07-28 a tool whose x-mcp-header marks
// break the rules is left out, as the spec says.
func (t timeoutFlags) listOptions(srv *connect.Conn, force bool) mcp.ListOptions {
	o := mcp.ListOptions{Force: force, RejectBadHeaders: srv.Transport() == "http" && srv.Session.Era2026(), Timeout: t.timeout, MaxTimeout: t.maxTimeout}
	if t.timeout == 0 {
		o.Timeout = -1 // --timeout 0: never
	}
	return o
}

// timedOut gives a request's error the exit status of a timeout (4),
// as call's.
func timedOut(err error) error {
	if errors.Is(err, session.ErrTimedOut) {
		return withCode(ExitTimedOut, err)
	}
	return err
}

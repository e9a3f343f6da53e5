package connect

import (
	"errors"

	"github.com/mcpoke/mcpoke/transport"
)

// EndReason says in one line why a connection ended, given the error its
// session ended with (session.Closed.Err): "server exited with status 3",
// "server killed by signal SIGKILL", or the error's own message. The
// server's stderr is not quoted: it is shown on its own.
func EndReason(err error) string {
	var exit *transport.ExitError
	switch {
	case errors.As(err, &exit):
		return "server " + exitSummary(exit)
	case err != nil:
		return err.Error()
	}
	return ""
}

// exitSummary says how a server process ended.
func exitSummary(e *transport.ExitError) string { return e.Summary() }

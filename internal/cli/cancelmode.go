package cli

import (
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// parseCancelMode reads --cancel-mode.
func parseCancelMode(s string) (session.CancelMode, error) {
	switch s {
	case "", "notify":
		return session.CancelNotify, nil
	case "close":
		return session.CancelClose, nil
	case "both":
		return session.CancelBoth, nil
	}
	return 0, usageError("--cancel-mode %q: use notify, close or both", s)
}

// cancelMeaning says what a cancel mode did on this transport and protocol
// version, for the report: in 2025 versions a disconnect is not a cancel;
// in 2026-07-28 over Streamable HTTP it is the one cancel, whatever the
// mode.
func cancelMeaning(m session.CancelMode, w session.CancelWire, transport, version string) string {
	stream := transport == "http"
	switch {
	case w.ByStreamClose:
		return fmt.Sprintf("under protocol %s over Streamable HTTP closing the request's response stream is the cancellation: "+
			"no notification was sent (--cancel-mode does not apply)", version)
	case session.IsEra2026(version) && !stream:
		return fmt.Sprintf("under protocol %s over %s the cancellation is notifications/cancelled, whatever --cancel-mode says", version, transport)
	case m == session.CancelNotify && stream:
		return fmt.Sprintf("notifications/cancelled was POSTed; the request's response stream stayed open to see late traffic (protocol %s)", version)
	case m == session.CancelNotify:
		return "notifications/cancelled was sent"
	case !stream:
		return fmt.Sprintf("the %s transport has no per-request stream to close: notifications/cancelled was sent", transport)
	case version >= "2026-07-28" && m == session.CancelClose:
		return fmt.Sprintf("the request's response stream was closed: under protocol %s that is the cancellation", version)
	case m == session.CancelClose:
		return fmt.Sprintf("the request's response stream was closed and nothing was sent: under protocol %s a disconnect is not a cancellation, so a compliant server goes on, and its late traffic cannot reach us on that stream", version)
	}
	return fmt.Sprintf("the request's response stream was closed and notifications/cancelled POSTed: under protocol %s only the notification cancels; late traffic on the closed stream is lost", version)
}

// cancelHow says in a few words what a cancellation put on the wire.
func cancelHow(info session.RequestInfo) string {
	w := info.CancelWire
	switch {
	case info.TaskID != "":
		return "tasks/cancel"
	case w.StreamClosed && w.Notified:
		return "notification and stream closed"
	case w.StreamClosed || w.ByStreamClose:
		return "stream closed"
	case w.Notified:
		return "notification"
	}
	return "nothing"
}

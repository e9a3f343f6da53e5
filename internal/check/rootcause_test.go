package check

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/session"
)

// lostCancel is a runner on conn whose watcher saw a request go to
// cancelling but never its CancelSent, as when a server dies on reading
// the cancel and the session ends before it could tell.
func lostCancel(conn *connect.Conn) *runner {
	ended := make(chan struct{})
	close(ended)
	id, _ := session.ParseID([]byte("7"))
	lost := &session.CancelSent{Ref: session.Ref{Seq: 1 << 40, ID: id}, At: time.Now()}
	return &runner{conn: conn, s: conn.Session, watch: &watcher{done: ended, cancelling: lost}}
}

// A cancel whose CancelSent was lost is named by how the run's era and
// transport cancel: in 2026-07-28 over Streamable HTTP by closing the
// request's stream (no notifications/cancelled is ever sent there), in
// 2025-11-25 by its notifications/cancelled.
func TestRootCauseOfALostCancelSaysHowTheEraSendsIt(t *testing.T) {
	t.Parallel()
	modern := lostCancel(servingModern(t, func(h http.Handler) http.Handler { return h })).rootCause()
	if !strings.Contains(modern, "cancelled request 7 (by closing its stream)") || strings.Contains(modern, "notifications/cancelled") {
		t.Errorf("2026-07-28 over HTTP: %q; want the cancel by closing its stream", modern)
	}
	legacy := lostCancel(servingHTTP(t, misbehaviour{})).rootCause()
	if !strings.Contains(legacy, "(by its notifications/cancelled)") {
		t.Errorf("2025-11-25 over HTTP: %q; want the cancel by its notifications/cancelled", legacy)
	}
}

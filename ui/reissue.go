package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// reissueLost sends the request of row seq again, under a new id, when the
// session reports it lost with its 2026-07-28 response stream: "clients
// MUST re-issue it as a new request with a new request ID" (changelog,
// SEP-2575). A request is re-issued once; a re-issue lost again stands,
// and r sends it again by hand.
func (m *Model) reissueLost(seq uint64) tea.Cmd {
	if m.conn == nil || !m.store.StartReissue(seq) {
		return nil
	}
	r := m.store.Get(seq)
	what := "lost " + termtext.Line(r.Label()) + " again"
	m.setStatus("re-issuing lost "+termtext.Line(r.Label())+" under a new id, as protocol 2026-07-28 asks…", false)
	send := callCmd(m.gen, m.conn.Session, r.Method, r.Params, m.bounds(), what)
	return func() tea.Msg {
		msg := send().(callSentMsg)
		msg.reissueOf = seq
		return msg
	}
}

// selectedSeq is the Seq of the selected request, or 0.
func (m *Model) selectedSeq() uint64 {
	if r := m.table.Selected(); r != nil {
		return r.Seq
	}
	return 0
}

// reissueText says what became of a lost request: re-issued by mcpoke
// (as the protocol asks), under way, or left for r.
func (d *detail) reissueText(r *rows.Row) string {
	again := "press " + d.c.Keys.Requests.Rerun.Help().Key + " to re-issue it under a new id"
	link := r.Reissue
	switch {
	case link == nil:
		return again
	case link.Failed != "":
		return "re-issuing it failed: " + termtext.Line(link.Failed) + "; " + again
	case link.As.IsZero() && link.Of.IsZero():
		return "re-issuing it under a new id…"
	case link.Of.IsZero():
		return "re-issued as request #" + termtext.Line(link.As.String()) + ", as protocol 2026-07-28 asks"
	}
	return "a re-issue of lost request #" + termtext.Line(link.Of.String()) + ", lost too: " + again
}

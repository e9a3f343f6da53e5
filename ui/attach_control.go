package ui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// attachControlTimeout bounds one control message's round trip.
const attachControlTimeout = 30 * time.Second

// attachRepliedMsg: the proxy answered a control message (or could not).
type attachRepliedMsg struct {
	req   AttachControl
	reply string
	err   error
}

// attachControlKey takes the keys that act on the host's requests
// through the proxy: c, C, R (the reason prompt), h, enter on a held
// row, x, and the report card. They are enabled only with a control
// channel (Attached.Control).
func (m *Model) attachControlKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	rq := m.c.Keys.Requests
	switch {
	case key.Matches(k, rq.Card):
		// The selected row's host session's card: over HTTP one proxy
		// may serve several hosts, each graded on its own.
		req := AttachControl{Control: "card"}
		if r := m.table.Selected(); r != nil {
			req.Session = r.HostSession
		}
		return m.attachSend(req), true
	case key.Matches(k, rq.CancelAll):
		return m.attachSend(AttachControl{Control: "kill-all", Reason: reasonUser}), true
	case key.Matches(k, rq.Cancel):
		r := m.attachSelected()
		if r == nil {
			return nil, true
		}
		return m.attachKill(r, reasonUser), true
	case key.Matches(k, rq.Hold), key.Matches(k, rq.Drop):
		r := m.attachSelected()
		if r == nil {
			return nil, true
		}
		c := "hold"
		if key.Matches(k, rq.Drop) {
			c = "drop"
		}
		return m.attachSend(AttachControl{Control: c, ID: r.ID.String(), Session: r.HostSession}), true
	case key.Matches(k, rq.Release) && m.focus == focusRequests:
		// enter releases only a row held from here, or one whose answer
		// the proxy holds now; elsewhere it opens.
		r := m.table.Selected()
		if r == nil || !m.attachHeld[heldKey(r.HostSession, r.ID.String())] && !r.Holding() {
			return nil, false
		}
		return m.attachSend(AttachControl{Control: "release", ID: r.ID.String(), Session: r.HostSession}), true
	}
	return nil, false
}

// attachSelected is the selected row if it is one of the host's
// requests, which are the only ones the proxy acts on.
func (m *Model) attachSelected() *rows.Row {
	r := m.table.Selected()
	switch {
	case r == nil:
		m.setStatus("no request selected", true)
		return nil
	case r.IsStray() || r.Incoming || r.ID.IsZero():
		m.setStatus("the proxy acts only on the host's requests: "+termtext.Line(r.Label())+" is not one", true)
		return nil
	}
	return r
}

// attachKill asks the proxy to cancel r on the host's behalf.
func (m *Model) attachKill(r *rows.Row, reason string) tea.Cmd {
	return m.attachSend(AttachControl{Control: "kill", ID: r.ID.String(), Reason: reason, Session: r.HostSession})
}

// attachSend sends req on a tea.Cmd: the reply comes as attachRepliedMsg.
func (m *Model) attachSend(req AttachControl) tea.Cmd {
	send := m.opts.Attached.Control
	if send == nil {
		return nil
	}
	m.setStatus("asking the proxy: "+req.Control+" "+termtext.Line(req.ID), false)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), attachControlTimeout)
		defer cancel()
		reply, err := send(ctx, req)
		return attachRepliedMsg{req: req, reply: reply, err: err}
	}
}

// heldKey names a held answer: its request's session and id.
func heldKey(session, id string) string { return session + " " + id }

// attachReplied puts the proxy's reply on the status line, and the
// report card in the tools pane, the host's list being no use here.
func (m *Model) attachReplied(msg attachRepliedMsg) {
	what := msg.req.Control
	if msg.req.ID != "" {
		what += " " + msg.req.ID
	}
	if msg.err != nil {
		m.setStatus(termtext.Line("proxy: "+what+": "+msg.err.Error()), true)
		return
	}
	switch msg.req.Control {
	case "card":
		m.tools.note = termtext.Sanitize(strings.TrimSpace(msg.reply), true)
		m.tools.noteTitle = "CARD"
		m.setFocus(focusTools)
		what := "the host's report card"
		if msg.req.Session != "" {
			what = "the report card of host session " + termtext.Line(msg.req.Session) + " (the selected row's)"
		}
		m.setStatus(what+", from the proxy (i again refreshes it)", false)
		return
	case "hold":
		if m.attachHeld == nil {
			m.attachHeld = map[string]bool{}
		}
		m.attachHeld[heldKey(msg.req.Session, msg.req.ID)] = true
	case "release", "drop":
		delete(m.attachHeld, heldKey(msg.req.Session, msg.req.ID))
	}
	m.setStatus(termtext.Line("proxy: "+msg.reply), false)
}

package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// connected takes a new connection: show it, start reading its events,
// run the handshake.
func (m *Model) connected(msg connectedMsg) tea.Cmd {
	if msg.err != nil {
		m.showClosed(msg.err.Error())
		m.listsUnavailable("not connected")
		m.setStatus("could not start the server: "+msg.err.Error(), true)
		return m.startFailed(msg.err)
	}
	m.conn, m.feed = msg.conn, msg.feed
	m.asks.client, m.asks.feed = msg.client, msg.asks
	m.header.declared = msg.conn.Declared()
	m.header.transport = msg.conn.Transport()
	m.detail.transport = m.header.transport
	m.header.label = msg.conn.Spec.Name
	m.wire.Reset(msg.conn.Started())
	m.logs.Reset(msg.conn.Started())
	return tea.Batch(nextCmd(m.gen, m.feed), initializeCmd(m.gen, m.conn), nextAskCmd(m.gen, m.asks.feed))
}

// initialized takes the handshake's outcome and lists the tools.
func (m *Model) initialized(msg initializedMsg) tea.Cmd {
	m.header.peer = msg.peer
	if msg.err != nil {
		m.setStatus(msg.err.Error(), true)
		if m.header.state == connConnecting {
			m.showClosed(msg.err.Error())
		}
		m.listsUnavailable("not initialized")
		return m.startFailed(msg.err)
	}
	m.startErr = nil
	m.store.EraFallback = eraFallback(msg.peer)
	m.store.MarkEraProbes()
	m.header.counts = m.store.Counts
	m.logs.perRequest = m.conn.Session.Era2026()
	m.eraKeyHelp(m.logs.perRequest)
	if m.header.state == connConnecting {
		m.header.state = connReady
	}
	if m.gen > 1 {
		m.setStatus("reconnected: a new server and session", false)
	}
	return tea.Batch(listToolsCmd(m.gen, m.conn.Session, m.listOptions()), m.listShown(), listenCmd(m.gen, m.conn.Session),
		m.startHealth())
}

// startFailed records why the server could not be started (or would not
// finish the handshake). The first start failing ends the UI, so that
// mcpoke exits non-zero with the reason, like any command whose server
// cannot start; a failed reconnect leaves the screen up to try again.
func (m *Model) startFailed(err error) tea.Cmd {
	m.startErr = err
	if m.gen > 1 {
		return nil
	}
	// Not m.quit: the status keeps the reason, not "closing…".
	m.quitting = true
	if m.conn == nil {
		return tea.Quit
	}
	return closeCmd(m.conn, m.feed, reasonClosing, closedForQuitMsg{})
}

// StartErr is why the latest server could not be started or initialized,
// or nil once one was: after the program ends, the caller exits non-zero
// with it.
func (m *Model) StartErr() error { return m.startErr }

// showClosed marks the connection closed in the header, saying why.
func (m *Model) showClosed(why string) {
	m.header.state = connClosed
	m.header.closedWhy = termtext.Line(why)
	m.relayout()
}

// listsUnavailable empties the tools, resources and prompts lists, each
// saying why.
func (m *Model) listsUnavailable(why string) {
	err := errors.New(why)
	m.tools.SetTools(nil, err)
	m.resources.SetEntries(nil, err)
	m.prompts.SetEntries(nil, err)
}

// sessionClosed shows why the session ended; pending requests were
// already failed by the session and arrive as their own events.
func (m *Model) sessionClosed(e session.Closed) {
	if m.opts.Attached != nil {
		m.attachEnded(e)
		return
	}
	if m.quitting || m.header.state == connClosed {
		// Quitting, or the handshake failed and closed the connection:
		// its error already says why, better than the end does.
		return
	}
	why := "connection closed"
	if e.ByPeer {
		why = "connection closed by the server"
	}
	if e.Err != nil {
		why = connect.EndReason(e.Err)
	}
	m.header.lastStderr = m.stderr.Last()
	m.showClosed(why)
	m.setStatus(fmt.Sprintf("%s; press %s to reconnect", termtext.Line(why), m.c.Keys.Global.Reconnect.Help().Key), true)
}

// reconnect closes the current session and starts a new one; the table
// starts over since request ids start over.
func (m *Model) reconnect() tea.Cmd {
	old, oldFeed := m.conn, m.feed
	m.gen++
	m.conn, m.feed = nil, nil
	m.store = rows.NewStore()
	m.table = newRequestTable(m.c, m.store)
	m.tools = newToolList(m.c)
	m.resources = newEntryList(m.c, "RESOURCES", "resources", 2)
	m.prompts = newEntryList(m.c, "PROMPTS", "prompts", 3)
	m.logs.Reset(timeZero)
	m.features = featureState{}
	m.stderr.Reset()
	m.wire.Reset(timeZero)
	m.header.peer = session.PeerInfo{}
	m.header.state = connConnecting
	m.header.closedWhy, m.header.lastStderr = "", ""
	m.header.counts = m.store.Counts
	m.cancellable.seq = 0
	m.editing = false
	m.asks.reset()
	m.setFocus(m.focus)
	m.relayout()
	m.setStatus("reconnecting…", false)
	closeOld := closeCmd(old, oldFeed, "client reconnecting", nil)
	connect := m.connectCmd()
	return tea.Batch(func() tea.Msg {
		closeOld() // the old server goes before the new one starts
		return connect()
	}, m.startTicking())
}

// quit cancels what is pending with reason "client closing", closes the
// session (which shuts the server down) and then exits.
func (m *Model) quit() tea.Cmd {
	if m.quitting {
		return nil
	}
	m.quitting = true
	m.asks.reset()
	m.header.state = connClosing
	m.relayout()
	m.setStatus("closing: cancelling pending requests and stopping the server… ("+
		m.c.Keys.Global.ForceQuit.Help().Key+" forces)", false)
	if m.conn == nil {
		return tea.Quit
	}
	return closeCmd(m.conn, m.feed, reasonClosing, closedForQuitMsg{})
}

// eraFallback reports whether auto mode's server/discover failed and the
// handshake went on to a legacy era: the probe found a legacy server (or
// none that answered in time), which is how negotiation works, not a
// fault. Not when a late answer showed a modern server (a fallback the
// header names).
func eraFallback(p session.PeerInfo) bool {
	return !p.Era2026() && strings.HasPrefix(p.Negotiation, "initialize") &&
		strings.Contains(p.Negotiation, "server/discover") && !strings.Contains(p.Negotiation, "a fallback:")
}

package ui

import (
	"context"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// attachQueue is how many events of the proxy's stream may wait for the
// feed, which drains them without ever blocking.
const attachQueue = 1024

// attachInit sets the model up to watch a proxy (Options.Attached) and
// starts reading it: the rows come from its stream's events as they do
// from a session's; only the control keys send (attach_control.go).
func (m *Model) attachInit() tea.Cmd {
	a := m.opts.Attached
	m.header.attached, m.header.state = true, connReady
	m.header.label = a.Name
	m.header.transport = "proxy"
	m.tools.noteTitle = "PROXY"
	m.detail.watching = true
	m.tools.note = "Attached to mcpoke proxy " + termtext.Line(a.Name) +
		": the requests are the host's, and the server's to the host. Nothing is sent from here."
	if a.Control != nil {
		m.tools.note = "Attached to mcpoke proxy " + termtext.Line(a.Name) +
			": the requests are the host's, and the server's to the host. c, C and R cancel on the host's behalf;" +
			" h holds an answer, enter passes it on, x drops it; i shows the report card."
	}
	m.wire.Reset(a.Start)
	m.logs.Reset(a.Start)
	m.setFocus(focusRequests)
	m.store.Relayed = true
	// The keys that would send are off, and so out of the help; with a
	// control channel, the cancels go to the proxy (attach_control.go).
	g, rq := &m.c.Keys.Global, &m.c.Keys.Requests
	for _, b := range []*key.Binding{&g.Timeout, &g.Reconnect, &g.ListTools, &m.c.Keys.Ask.AddRoot, &g.ShowResources,
		&g.ShowPrompts, &g.Subscribe, &g.Ping, &g.LogLevel, &rq.Rerun} {
		b.SetEnabled(false)
	}
	for _, b := range []*key.Binding{&rq.Cancel, &rq.CancelAll, &rq.CancelWithReason, &rq.Hold, &rq.Release, &rq.Drop, &rq.Card} {
		b.SetEnabled(a.Control != nil)
	}
	events := make(chan any, attachQueue)
	feed := rows.NewItemFeed(events, m.opts.frameInterval)
	m.feed = feed
	record := func(r wire.Record) {
		if r.Kind == wire.KindStderr {
			// The stderr pane takes its lines as events, as from a session.
			events <- session.StderrLine{At: r.At, Line: string(r.Data)}
			return
		}
		feed.AddRecord(r)
	}
	go func() {
		err := a.Run(context.Background(), record, func(item any) { events <- item })
		events <- session.Closed{Err: err, ByPeer: true}
		close(events)
	}()
	return nextCmd(m.gen, feed)
}

// attachApplied brings what the session would have been asked up to
// date from the proxy's stream: the records of rows that settled, and
// the header.
func (m *Model) attachApplied(settled []*rows.Row) {
	a := m.opts.Attached
	for _, r := range settled {
		if info, ok := a.Info(r.Seq); ok {
			m.store.SetInfo(r.Seq, info)
		}
	}
	m.header.toolErrors = m.store.ToolErrors
	h := a.Header()
	m.header.host = h.Host
	m.header.peer.ServerInfo.Name = h.Server
	m.header.peer.ProtocolVersion = h.Version
	if h.Transport != "" {
		m.header.transport = h.Transport + " proxy"
	}
	m.detail.transport = h.Transport
}

// attachEnded: the proxy's stream ended (the proxy exited) or broke.
func (m *Model) attachEnded(e session.Closed) {
	if m.quitting {
		return
	}
	why := "the proxy ended"
	if e.Err != nil {
		why = "the proxy's stream broke: " + e.Err.Error()
	}
	m.header.lastStderr = m.stderr.Last()
	m.showClosed(why)
	m.setStatus(why+"; what passed stays here (W writes it)", e.Err != nil)
}

// attachKey takes the keys that would act on the tools, whose list is
// the host's: attached, the UI only watches.
func (m *Model) attachKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if cmd, ok := m.attachControlKey(k); ok {
		return cmd, true
	}
	if key.Matches(k, m.c.Keys.Nav.Open) && m.focus == focusTools {
		m.setStatus("attached to a proxy, mcpoke only watches: the host calls the tools", false)
		return nil, true
	}
	return nil, false
}

package ui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// leftKind says which list the left pane shows.
type leftKind int

const (
	leftTools leftKind = iota
	leftResources
	leftPrompts
)

// featureState is what the server's features beside tools (resources,
// prompts, completion, logging) keep between messages.
type featureState struct {
	subs map[string]subState
	// compN counts the completions asked for: only the newest is shown,
	// and one superseded while in flight is cancelled.
	compN        int
	compInFlight *session.Call
	// listen is the subscriptions/listen of a modern session, which
	// carries its resource subscriptions.
	listen listenState
	// listed: resources (0) or prompts (1) were asked for on this
	// connection; relisting: they are being listed again.
	listed, relisting [2]bool
}

// leftList is a list the left pane shows: the tools, the resources or
// the prompts, each filtered and clicked the same way.
type leftList interface {
	bodyPane
	Filter() string
	SetFilter(string)
	ClickAt(y int) bool
}

var (
	_ leftList = (*toolList)(nil)
	_ leftList = (*entryList)(nil)
)

// leftPane is the list the left pane shows.
func (m *Model) leftPane() leftList {
	switch m.left {
	case leftResources:
		return m.resources
	case leftPrompts:
		return m.prompts
	}
	return m.tools
}

// leftFilter is the filter of the list the left pane shows.
func (m *Model) leftFilter() string { return m.leftPane().Filter() }

// setLeftFilter filters the list the left pane shows.
func (m *Model) setLeftFilter(f string) { m.leftPane().SetFilter(f) }

// leftClick selects what was clicked in the left pane.
func (m *Model) leftClick(y int) { m.leftPane().ClickAt(y) }

// featureKey handles the keys of resources, prompts and logging (and the
// lists of the left pane, and ping); ok is false for any other key.
func (m *Model) featureKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	g := m.c.Keys.Global
	switch {
	case key.Matches(k, g.ShowTools):
		return m.showLeft(leftTools), true
	case key.Matches(k, g.ShowResources):
		return m.showLeft(leftResources), true
	case key.Matches(k, g.ShowPrompts):
		return m.showLeft(leftPrompts), true
	case key.Matches(k, g.Log):
		m.toggleBottom(bottomLog)
	case key.Matches(k, g.Subscribe):
		return m.toggleSubscription(), true
	case key.Matches(k, g.Ping):
		return m.ping(), true
	case key.Matches(k, g.LogLevel):
		return m.openLogLevel(), true
	default:
		return nil, false
	}
	return nil, true
}

// showLeft shows a list in the left pane and gives it the keys. The
// resources and prompts are listed the first time they are shown: a
// session that never looks at them sends nothing for them.
func (m *Model) showLeft(k leftKind) tea.Cmd {
	m.left = k
	m.setFocus(focusTools)
	m.c.Keys.Nav.Open.SetHelp("enter", [...]string{"call tool", "read", "get prompt"}[k])
	return m.listShown()
}

// listShown lists the resources or prompts the left pane shows, unless
// they were listed on this connection: when first shown, and after a
// reconnect.
func (m *Model) listShown() tea.Cmd {
	if m.left == leftTools || m.conn == nil || m.header.state != connReady {
		return nil
	}
	i := int(m.left - leftResources)
	if m.features.listed[i] {
		return nil
	}
	m.features.listed[i] = true
	if m.left == leftPrompts {
		return listPromptsCmd(m.gen, m.conn.Session, m.opts.Force)
	}
	return listResourcesCmd(m.gen, m.conn.Session, m.opts.Force)
}

// ready says whether requests can be sent, and if not says so.
func (m *Model) ready() bool {
	if m.conn == nil || m.header.state != connReady {
		m.setStatus("not connected; press "+m.c.Keys.Global.Reconnect.Help().Key+" to reconnect", true)
		return false
	}
	return true
}

// declared says whether the server declared what method needs; if not,
// and not --force, it says so and nothing is sent.
func (m *Model) declared(method string) bool {
	if m.opts.Force {
		return true
	}
	if err := mcp.CheckDeclared(m.conn.Session.Peer(), method); err != nil {
		m.setStatus(err.Error(), true)
		return false
	}
	return true
}

// entriesListed shows a list in its pane.
func (m *Model) entriesListed(msg entriesListedMsg) {
	l, i := m.resources, 0
	if msg.prompts {
		l, i = m.prompts, 1
	}
	relisted := m.features.relisting[i]
	m.features.relisting[i] = false
	err := msg.err
	if errors.Is(err, mcp.ErrNotDeclared) {
		err = fmt.Errorf("the server offers no %s (it did not declare the capability)", l.noun)
	}
	l.SetEntries(msg.entries, err)
	switch {
	case msg.err != nil && !errors.Is(msg.err, mcp.ErrNotDeclared):
		m.setStatus(msg.err.Error(), true)
	case msg.incomplete != nil:
		m.setStatus(msg.incomplete.Error(), true)
	case relisted:
		m.setStatus(fmt.Sprintf("the server's %s changed: %s now", l.noun, english.Plural(len(msg.entries), strings.TrimSuffix(l.noun, "s"))), false)
	}
}

// relistEntries lists resources (or prompts) again after the server's
// list_changed; one already under way stands for it.
func (m *Model) relistEntries(prompts bool) tea.Cmd {
	i := 0
	if prompts {
		i = 1
	}
	if m.conn == nil || m.header.state != connReady || m.features.relisting[i] || !m.features.listed[i] {
		return nil
	}
	m.features.relisting[i] = true
	if prompts {
		return listPromptsCmd(m.gen, m.conn.Session, m.opts.Force)
	}
	return listResourcesCmd(m.gen, m.conn.Session, m.opts.Force)
}

// updateFeatures takes the messages of resources, prompts, completion
// and logging, and of the requests the panes send.
func (m *Model) updateFeatures(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case entriesListedMsg:
		m.entriesListed(msg)
	case requestSentMsg:
		return m.requestSent(msg)
	case requestDoneMsg:
		m.requestDone(msg)
	case listenOpenedMsg:
		return m.listenOpened(msg)
	case listenEndedMsg:
		m.listenEnded(msg)
	case listenClosedMsg:
		m.listenClosed(msg)
	case completionDueMsg:
		return m.completionDue(msg)
	case contentsSavedMsg:
		if msg.err != nil {
			m.setStatus("not saved: "+msg.err.Error(), true)
		} else {
			m.setStatus(fmt.Sprintf("saved %s to %s", byteSize(msg.n), msg.path), false)
		}
	}
	return nil
}

// requestSent selects the new row (not for completions, which come as
// the user types) and waits for the request's end.
func (m *Model) requestSent(msg requestSentMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus(msg.what+": "+msg.err.Error(), true)
		if msg.kind == purposeSubscribe || msg.kind == purposeUnsubscribe {
			delete(m.features.subs, msg.uri)
		}
		if msg.call == nil {
			return nil
		}
	}
	if msg.kind == purposeComplete {
		m.features.compInFlight = msg.call
	} else if msg.seq != 0 {
		m.table.SelectSeq(msg.seq)
		if msg.err == nil && m.header.state == connReady {
			m.setStatus(fmt.Sprintf("sent %s as request #%s", msg.what, termtext.Line(msg.id.String())), false)
		}
	}
	return awaitCmd(m.gen, m.conn.Session, msg.call, msg.purpose)
}

// requestDone acts on the end of a request a pane sent.
func (m *Model) requestDone(msg requestDoneMsg) {
	ok := msg.state == session.Completed
	why := ""
	if msg.err != nil {
		why = termtext.Line(msg.err.Error())
	}
	switch msg.kind {
	case purposeRead:
		if ok {
			m.resources.Mark(msg.uri, func(r *resourceMark) { r.updates = 0 })
		}
	case purposeSubscribe:
		if ok {
			m.features.subs[msg.uri] = subSubscribed
			m.resources.Mark(msg.uri, func(r *resourceMark) { r.subscribed = true })
			m.setStatus("subscribed to "+termtext.Line(msg.uri)+"; "+m.c.Keys.Global.Subscribe.Help().Key+" again unsubscribes", false)
			return
		}
		delete(m.features.subs, msg.uri)
		m.setStatus("subscribe to "+termtext.Line(msg.uri)+": "+why, true)
	case purposeUnsubscribe:
		if ok {
			delete(m.features.subs, msg.uri)
			m.resources.Mark(msg.uri, func(r *resourceMark) { r.subscribed, r.updates = false, 0 })
			m.setStatus("unsubscribed from "+termtext.Line(msg.uri), false)
			return
		}
		m.features.subs[msg.uri] = subSubscribed
		m.setStatus("unsubscribe from "+termtext.Line(msg.uri)+": "+why, true)
	case purposePing:
		if ok {
			if msg.method == "ping" && m.health.interval > 0 {
				m.health.rtt, m.health.answered = msg.ran, true
			}
			m.setStatus(fmt.Sprintf("%s #%s answered: %s round trip%s", msg.method, termtext.Line(msg.id.String()), roundTrip(msg.ran), pingNote(msg.method)), false)
			return
		}
		m.setStatus(msg.method+": "+why, true)
	case purposeSetLevel:
		if ok {
			m.logs.level = msg.level
			m.setStatus("the server now logs at "+msg.level+" and above; "+m.c.Keys.Global.Log.Help().Key+" shows its log", false)
			return
		}
		m.setStatus("logging/setLevel "+msg.level+": "+why, true)
	case purposeComplete:
		m.completionDone(msg)
	}
}

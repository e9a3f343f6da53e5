package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

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

// subState is where a subscription is.
type subState int

const (
	subNone subState = iota
	subSubscribing
	subSubscribed
	subUnsubscribing
)

// restState is what the resources, prompts, completion and log features
// keep between messages.
type restState struct {
	subs map[string]subState
	// compN counts the completions asked for: only the newest is shown,
	// and one superseded while in flight is cancelled.
	compN        int
	compInFlight *session.Call
	// listed: resources (0) or prompts (1) were asked for on this
	// connection; relisting: they are being listed again.
	listed, relisting [2]bool
}

// completionDelay is how long typing must pause before a completion is
// asked for (the spec: "Debounce rapid completion requests").
const completionDelay = 250 * time.Millisecond

// pingTimeout bounds the ping key's ping.
const pingTimeout = 10 * time.Second

// completionDueMsg: the debounce of the completion key.n ran out.
type completionDueMsg struct {
	forGen
	key completionKey
}

// contentsSavedMsg: a read's contents were saved to path (n bytes), or
// not (err).
type contentsSavedMsg struct {
	path string
	n    int
	err  error
}

// leftPane is the list the left pane shows.
func (m *Model) leftPane() bodyPane {
	switch m.left {
	case leftResources:
		return m.resources
	case leftPrompts:
		return m.prompts
	}
	return m.tools
}

// leftFilter is the filter of the list the left pane shows.
func (m *Model) leftFilter() string {
	switch m.left {
	case leftResources:
		return m.resources.filter
	case leftPrompts:
		return m.prompts.filter
	}
	return m.tools.filter
}

// setLeftFilter filters the list the left pane shows.
func (m *Model) setLeftFilter(f string) {
	switch m.left {
	case leftResources:
		m.resources.SetFilter(f)
	case leftPrompts:
		m.prompts.SetFilter(f)
	default:
		m.tools.SetFilter(f)
	}
}

// leftClick selects what was clicked in the left pane.
func (m *Model) leftClick(y int) {
	switch m.left {
	case leftResources:
		m.resources.ClickAt(y)
	case leftPrompts:
		m.prompts.ClickAt(y)
	default:
		m.tools.ClickAt(y)
	}
}

// restKey handles the keys of issue 13; ok is false for any other key.
func (m *Model) restKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
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
	if m.rest.listed[i] {
		return nil
	}
	m.rest.listed[i] = true
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

// restListed shows a list in its pane.
func (m *Model) restListed(msg restListedMsg) {
	l, i := m.resources, 0
	if msg.prompts {
		l, i = m.prompts, 1
	}
	relisted := m.rest.relisting[i]
	m.rest.relisting[i] = false
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

// relistRest lists resources (or prompts) again after the server's
// list_changed; one already under way stands for it.
func (m *Model) relistRest(prompts bool) tea.Cmd {
	i := 0
	if prompts {
		i = 1
	}
	if m.conn == nil || m.header.state != connReady || m.rest.relisting[i] || !m.rest.listed[i] {
		return nil
	}
	m.rest.relisting[i] = true
	if prompts {
		return listPromptsCmd(m.gen, m.conn.Session, m.opts.Force)
	}
	return listResourcesCmd(m.gen, m.conn.Session, m.opts.Force)
}

// openEntry is enter on a resource, template or prompt: read the
// resource, or open the form of a template's variables or a prompt's
// arguments.
func (m *Model) openEntry(l *entryList) tea.Cmd {
	e := l.Selected()
	if e == nil || !m.ready() {
		return nil
	}
	switch e.kind {
	case entryResource:
		return m.read(e.id)
	case entryTemplate:
		if e.template.VariablesErr != nil {
			m.setStatus("cannot fill this template: "+e.template.VariablesErr.Error(), true)
			return nil
		}
		m.setEditing(true)
		return m.editor.OpenFor(e.template.ArgumentsTool(), m.target(targetTemplate, e.id))
	}
	m.setEditing(true)
	return m.editor.OpenFor(e.prompt.ArgumentsTool(), m.target(targetPrompt, e.id))
}

// target is an editor target, completing when the server declared
// completions.
func (m *Model) target(k targetKind, name string) editorTarget {
	complete := m.opts.Force || mcp.CheckDeclared(m.conn.Session.Peer(), "completion/complete") == nil
	return editorTarget{kind: k, name: name, complete: complete}
}

// read sends resources/read for uri.
func (m *Model) read(uri string) tea.Cmd {
	if !m.declared("resources/read") {
		return nil
	}
	m.setStatus("reading "+termtext.Line(uri)+"…", false)
	return requestCmd(m.gen, m.conn.Session, "resources/read", mcp.ReadResourceParams(uri), m.timeout,
		purpose{kind: purposeRead, uri: uri}, "resources/read "+termtext.Line(uri))
}

// sendTarget sends what the editor filled in for a prompt or template.
func (m *Model) sendTarget(t editorTarget, args json.RawMessage) tea.Cmd {
	if !m.ready() {
		return nil
	}
	if t.kind == targetTemplate {
		var vars map[string]string
		if err := json.Unmarshal(args, &vars); err != nil {
			m.setStatus("template variables: "+err.Error(), true)
			return nil
		}
		uri, err := mcp.ExpandTemplate(t.name, vars)
		if err != nil {
			m.setStatus(err.Error(), true)
			return nil
		}
		return m.read(uri)
	}
	if !m.declared("prompts/get") {
		return nil
	}
	params, err := mcp.GetPromptParams(t.name, args)
	if err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	m.setStatus("getting prompt "+termtext.Line(t.name)+"…", false)
	return requestCmd(m.gen, m.conn.Session, "prompts/get", params, m.timeout, purpose{kind: purposeGetPrompt},
		"prompts/get "+termtext.Line(t.name))
}

// toggleSubscription subscribes to the selected resource, or
// unsubscribes from it.
func (m *Model) toggleSubscription() tea.Cmd {
	e := m.resources.Selected()
	if m.left != leftResources || e == nil || e.kind != entryResource {
		m.setStatus("select a resource in the resources list ("+m.c.Keys.Global.ShowResources.Help().Key+") to subscribe to it", true)
		return nil
	}
	if !m.ready() {
		return nil
	}
	uri := e.id
	method, p, st := "resources/subscribe", purpose{kind: purposeSubscribe, uri: uri}, subSubscribing
	switch m.rest.subs[uri] {
	case subSubscribing, subUnsubscribing:
		m.setStatus("already asked; waiting for the server's answer", true)
		return nil
	case subSubscribed:
		method, p, st = "resources/unsubscribe", purpose{kind: purposeUnsubscribe, uri: uri}, subUnsubscribing
	}
	if !m.declared(method) {
		return nil
	}
	if m.rest.subs == nil {
		m.rest.subs = map[string]subState{}
	}
	m.rest.subs[uri] = st
	return requestCmd(m.gen, m.conn.Session, method, mcp.ReadResourceParams(uri), m.timeout, p, method+" "+termtext.Line(uri))
}

// ping sends ping; its round trip is shown when it answers.
func (m *Model) ping() tea.Cmd {
	if !m.ready() {
		return nil
	}
	return requestCmd(m.gen, m.conn.Session, "ping", nil, pingTimeout, purpose{kind: purposePing}, "ping")
}

// openLogLevel asks for the level the server should log at.
func (m *Model) openLogLevel() tea.Cmd {
	if !m.ready() || !m.declared("logging/setLevel") {
		return nil
	}
	level := m.logs.level
	if level == "" {
		level = "debug"
	}
	return m.prompt.Open(promptLogLevel, "log level ("+strings.Join(mcp.LogLevels, ", ")+"):", level)
}

// setLogLevel sends logging/setLevel.
func (m *Model) setLogLevel(level string) tea.Cmd {
	params, err := mcp.SetLevelParams(level)
	if err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	if !m.ready() {
		return nil
	}
	return requestCmd(m.gen, m.conn.Session, "logging/setLevel", params, m.timeout, purpose{kind: purposeSetLevel, level: level},
		"logging/setLevel "+level)
}

// updateRest takes the messages of issue 13's features.
func (m *Model) updateRest(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case restListedMsg:
		m.restListed(msg)
	case requestSentMsg:
		return m.requestSent(msg)
	case requestDoneMsg:
		m.requestDone(msg)
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
			delete(m.rest.subs, msg.uri)
		}
		if msg.call == nil {
			return nil
		}
	}
	if msg.kind == purposeComplete {
		m.rest.compInFlight = msg.call
	} else if msg.seq != 0 {
		m.table.SelectSeq(msg.seq)
		if msg.err == nil && m.header.state == connReady {
			m.setStatus(fmt.Sprintf("sent %s as request #%d", msg.what, msg.seq), false)
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
			m.rest.subs[msg.uri] = subSubscribed
			m.resources.Mark(msg.uri, func(r *resourceMark) { r.subscribed = true })
			m.setStatus("subscribed to "+termtext.Line(msg.uri)+"; "+m.c.Keys.Global.Subscribe.Help().Key+" again unsubscribes", false)
			return
		}
		delete(m.rest.subs, msg.uri)
		m.setStatus("subscribe to "+termtext.Line(msg.uri)+": "+why, true)
	case purposeUnsubscribe:
		if ok {
			delete(m.rest.subs, msg.uri)
			m.resources.Mark(msg.uri, func(r *resourceMark) { r.subscribed, r.updates = false, 0 })
			m.setStatus("unsubscribed from "+termtext.Line(msg.uri), false)
			return
		}
		m.rest.subs[msg.uri] = subSubscribed
		m.setStatus("unsubscribe from "+termtext.Line(msg.uri)+": "+why, true)
	case purposePing:
		if ok {
			m.setStatus(fmt.Sprintf("ping #%d answered: %s round trip", msg.seq, roundTrip(msg.ran)), false)
			return
		}
		m.setStatus("ping: "+why, true)
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

// roundTrip says how long a ping took, to the microsecond below a second:
// a local server answers in well under a millisecond.
func roundTrip(d time.Duration) string {
	if d >= time.Second {
		return formatDuration(d)
	}
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// notified takes one notification from the server: log messages go to
// the log pane, resource updates mark the resource, list changes list
// again.
func (m *Model) notified(n session.NotificationArrived, logs *[]logLine) tea.Cmd {
	switch n.Method {
	case mcp.LogMessage:
		l := newLogLine(n.At, n.Params, n.Size)
		if n.Related.Seq != 0 {
			// It came with a request of ours (on its own HTTP stream).
			what := "#" + termtext.Line(n.Related.ID.String())
			if r := m.store.get(n.Related.Seq); r != nil {
				what = r.label()
			}
			l.related = strings.TrimSpace(what + " " + l.related)
		}
		*logs = append(*logs, l)
	case mcp.ResourceUpdated:
		uri, err := mcp.ParseResourceUpdated(n.Params)
		if err != nil {
			m.setStatus(err.Error(), true)
			return nil
		}
		m.resources.Mark(uri, func(r *resourceMark) { r.updates++ })
	case mcp.ResourcesListChanged:
		return m.relistRest(false)
	case mcp.PromptsListChanged:
		return m.relistRest(true)
	}
	return nil
}

// editorChanged asks for a completion, after the debounce, when the
// focused field or its value changed.
func (m *Model) editorChanged(before fieldValue) tea.Cmd {
	after := m.editor.focusedValue()
	if !m.editing || !m.editor.target.complete || after.field == "" || after == before {
		return nil
	}
	m.rest.compN++
	k := completionKey{field: after.field, value: after.value, n: m.rest.compN}
	s := &m.editor.suggest
	if s.key.field != k.field {
		*s = suggestions{pick: -1}
	}
	s.key.field, s.waiting = k.field, true
	gen, delay := m.gen, m.opts.completionDelay
	if delay == 0 {
		delay = completionDelay
	}
	return tea.Tick(delay, func(time.Time) tea.Msg { return completionDueMsg{forGen: forGen{gen}, key: k} })
}

// completionDue sends the completion unless a newer one superseded it;
// one still in flight is cancelled, as its answer would be for a value
// no longer typed.
func (m *Model) completionDue(msg completionDueMsg) tea.Cmd {
	if msg.key.n != m.rest.compN || !m.editing || m.conn == nil {
		return nil
	}
	if c := m.rest.compInFlight; c != nil {
		m.rest.compInFlight = nil
		_ = m.conn.Session.Request(c.Ref()).Cancel("superseded by a newer completion")
	}
	t := m.editor.target
	params := mcp.CompleteParams(t.ref(), msg.key.field, msg.key.value, m.editor.otherValues(msg.key.field))
	return requestCmd(m.gen, m.conn.Session, "completion/complete", params, m.timeout,
		purpose{kind: purposeComplete, completion: msg.key}, "completion/complete "+termtext.Line(msg.key.field))
}

// completionDone shows the newest completion's values under its field.
func (m *Model) completionDone(msg requestDoneMsg) {
	if m.rest.compInFlight != nil && m.rest.compInFlight.Seq() == msg.seq {
		m.rest.compInFlight = nil
	}
	s := &m.editor.suggest
	if msg.completion.n != m.rest.compN || !m.editing || s.key.field != msg.completion.field {
		return // superseded, or the editor moved on
	}
	*s = suggestions{key: msg.completion, pick: -1}
	if msg.state != session.Completed {
		if msg.err != nil {
			s.err = msg.err.Error()
		}
		return
	}
	c, err := mcp.ReadCompleteResult(msg.result)
	if err != nil {
		s.err = err.Error()
		return
	}
	s.values, s.total, s.hasMore = c.Values, c.Total, c.HasMore
}

// suggestionKey puts a suggestion in the focused field.
func (m *Model) suggestionKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	keys := m.c.Keys.Editor
	n := 0
	switch {
	case key.Matches(k, keys.NextSuggestion):
		n = 1
	case key.Matches(k, keys.PrevSuggestion):
		n = -1
	default:
		return nil, false
	}
	m.editor.pickSuggestion(n)
	return nil, true
}

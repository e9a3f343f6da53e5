package ui

import (
	"context"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// In protocol 2026-07-28 there is no resources/subscribe: a client names
// the resources it follows in the subscriptions/listen it opens. So s
// opens a new listen with the whole set (one more, or one fewer), and
// once the server acknowledges it, closes the one it replaces: no
// notification is missed in between. Unsubscribing from the last
// resource, with no list change to listen for, just closes the listen.

// listenState is the UI's subscriptions/listen: the open one and the one
// replacing it, each with the resources it asked for.
type listenState struct {
	cur      *session.Call
	curURIs  []string
	next     *session.Call
	nextURIs []string
	// change is the user's (un)subscribe the next listen carries out.
	change subChange
}

// subChange is one press of s in the modern era.
type subChange struct {
	uri       string
	subscribe bool
}

// listenOpenedMsg: a subscriptions/listen was sent, or failed to be.
type listenOpenedMsg struct {
	forGen
	call   *session.Call
	uris   []string
	change subChange
	err    error
}

// listenEndedMsg: a subscriptions/listen of the UI's ended (closed by us
// or by the server, or failed).
type listenEndedMsg struct {
	forGen
	call  *session.Call
	state session.State
	err   error
}

// openListenCmd opens a subscriptions/listen for the list changes the
// server notifies and for uris; nothing when that is nothing to listen
// for.
func openListenCmd(gen int, s *session.Session, uris []string, change subChange) tea.Cmd {
	caps, err := mcp.ParseServerCapabilities(s.Peer().Capabilities)
	if err != nil {
		return nil
	}
	f := mcp.SubscribeFilter(caps, uris)
	if f.Empty() {
		return nil
	}
	return func() tea.Msg {
		c, err := mcp.Listen(context.Background(), s, f)
		return listenOpenedMsg{forGen: forGen{gen}, call: c, uris: uris, change: change, err: err}
	}
}

// awaitListenCmd waits for a listen's end.
func awaitListenCmd(gen int, c *session.Call) tea.Cmd {
	return func() tea.Msg {
		_, state, err := c.Result()
		return listenEndedMsg{forGen: forGen{gen}, call: c, state: state, err: err}
	}
}

// listenClosedMsg: the cancel of a listen was written (or refused); wire
// is what it did, by the era's rule.
type listenClosedMsg struct {
	forGen
	call *session.Call
	wire session.CancelWire
	err  error
}

// closeListenCmd cancels a listen by the era's rule.
func closeListenCmd(gen int, s *session.Session, c *session.Call, why string) tea.Cmd {
	return func() tea.Msg {
		h := s.Request(c.Ref())
		err := h.Cancel(why)
		msg := listenClosedMsg{forGen: forGen{gen}, call: c, err: err}
		if info, ok := h.Info(); ok {
			msg.wire = info.CancelWire
		}
		return msg
	}
}

// closeHow says what closing a listen did on the wire.
func closeHow(w session.CancelWire) string {
	switch {
	case w.ByStreamClose:
		return "(its stream closed: the era's cancel over HTTP)"
	case w.Notified && w.StreamClosed:
		return "(notifications/cancelled, and its stream closed)"
	case w.Notified:
		return "(notifications/cancelled: the era's cancel on stdio)"
	}
	return ""
}

// subscribeModern subscribes to uri, or unsubscribes from it, through
// subscriptions/listen.
func (m *Model) subscribeModern(uri string, subscribe bool) tea.Cmd {
	l := &m.features.listen
	switch {
	case l.next != nil:
		m.setStatus("waiting for the server to acknowledge subscriptions/listen #"+seqText(l.next)+"; try again then", true)
		return nil
	case l.change.uri != "":
		m.setStatus("waiting for subscriptions/listen #"+seqText(l.cur)+" to close; try again then", true)
		return nil
	}
	want := m.subscribedURIs()
	st := subUnsubscribing
	if subscribe {
		want, st = append(want, uri), subSubscribing
	} else {
		want = slices.DeleteFunc(want, func(u string) bool { return u == uri })
	}
	slices.Sort(want)
	m.features.subs[uri] = st
	change := subChange{uri: uri, subscribe: subscribe}
	if cmd := openListenCmd(m.gen, m.conn.Session, want, change); cmd != nil {
		return cmd
	}
	// Nothing left to listen for: closing the listen is the unsubscribe.
	if l.cur == nil {
		delete(m.features.subs, uri)
		m.resources.Mark(uri, func(r *resourceMark) { r.subscribed, r.updates = false, 0 })
		return nil
	}
	l.change = change
	return closeListenCmd(m.gen, m.conn.Session, l.cur, "unsubscribed from "+uri)
}

// subscribedURIs are the resources subscribed to, sorted.
func (m *Model) subscribedURIs() []string {
	var out []string
	for uri, st := range m.features.subs {
		if st == subSubscribed {
			out = append(out, uri)
		}
	}
	slices.Sort(out)
	return out
}

// listenOpened follows a new listen: the first, or one replacing the
// open one.
func (m *Model) listenOpened(msg listenOpenedMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus("subscriptions/listen: "+termtext.Line(msg.err.Error()), true)
		if msg.change.uri != "" {
			m.subscribeFailed(msg.change)
		}
		return nil
	}
	l := &m.features.listen
	if msg.change.uri == "" && l.cur == nil {
		l.cur, l.curURIs = msg.call, msg.uris
		return awaitListenCmd(m.gen, msg.call)
	}
	l.next, l.nextURIs, l.change = msg.call, msg.uris, msg.change
	m.table.SelectSeq(msg.call.Seq())
	verb := "subscribing to "
	if !msg.change.subscribe {
		verb = "unsubscribing from "
	}
	m.setStatus(verb+termtext.Line(msg.change.uri)+": sent subscriptions/listen #"+seqText(msg.call)+" with resourceSubscriptions ["+
		termtext.Line(strings.Join(msg.uris, ", "))+"] (protocol 2026-07-28 has no resources/subscribe); waiting for its acknowledgement", false)
	return awaitListenCmd(m.gen, msg.call)
}

// listenAcked takes the acknowledgement of the listen replacing the open
// one: what the server agreed to is subscribed, and the old listen is
// closed.
func (m *Model) listenAcked(e session.SubscriptionNotified) tea.Cmd {
	l := &m.features.listen
	if e.Note.Method != "notifications/subscriptions/acknowledged" || l.next == nil || e.Ref.Seq != l.next.Seq() {
		return nil
	}
	ack, err := mcp.ParseListenAck(e.Note.Params)
	if err != nil {
		m.setStatus(err.Error(), true)
	}
	old := l.cur
	change := l.change
	l.cur, l.curURIs, l.next, l.nextURIs, l.change = l.next, ack.ResourceSubscriptions, nil, nil, subChange{}
	m.setSubscriptions(ack.ResourceSubscriptions)
	agreed := slices.Contains(ack.ResourceSubscriptions, change.uri)
	how := "through subscriptions/listen #" + seqText(l.cur)
	switch {
	case change.subscribe && agreed:
		m.setStatus("subscribed to "+termtext.Line(change.uri)+" "+how+" (acknowledged); "+
			m.c.Keys.Global.Subscribe.Help().Key+" again unsubscribes", false)
	case change.subscribe:
		m.setStatus("subscribe to "+termtext.Line(change.uri)+": the server acknowledged subscriptions/listen #"+seqText(l.cur)+
			" without it (it will not notify its updates)", true)
	default:
		m.setStatus("unsubscribed from "+termtext.Line(change.uri)+": subscriptions/listen #"+seqText(l.cur)+" no longer names it", false)
	}
	if old == nil {
		return nil
	}
	return closeListenCmd(m.gen, m.conn.Session, old, "replaced by subscriptions/listen #"+seqText(l.cur))
}

// setSubscriptions makes uris the subscribed resources, as the server
// acknowledged them.
func (m *Model) setSubscriptions(uris []string) {
	for uri := range m.features.subs {
		if !slices.Contains(uris, uri) {
			delete(m.features.subs, uri)
			m.resources.Mark(uri, func(r *resourceMark) { r.subscribed, r.updates = false, 0 })
		}
	}
	for _, uri := range uris {
		if m.features.subs[uri] != subSubscribed {
			m.features.subs[uri] = subSubscribed
			m.resources.Mark(uri, func(r *resourceMark) { r.subscribed = true })
		}
	}
}

// listenEnded follows the end of a listen. The open one ending ends its
// subscriptions; the one replacing it failing leaves the open one as is.
func (m *Model) listenEnded(msg listenEndedMsg) {
	l := &m.features.listen
	switch msg.call {
	case l.next:
		change := l.change
		l.next, l.nextURIs, l.change = nil, nil, subChange{}
		m.subscribeFailed(change)
		why := "it ended before its acknowledgement"
		if msg.err != nil {
			why = termtext.Line(msg.err.Error())
		}
		m.setStatus("subscriptions/listen #"+seqText(msg.call)+": "+why, true)
	case l.cur:
		had := m.subscribedURIs()
		l.cur, l.curURIs = nil, nil
		m.setSubscriptions(nil)
		if len(had) > 0 {
			m.setStatus("subscriptions/listen #"+seqText(msg.call)+" ended ("+stateWord(msg.state)+"): no longer subscribed to "+
				termtext.Line(strings.Join(had, ", "))+"; "+m.c.Keys.Global.Subscribe.Help().Key+" subscribes again", true)
		}
	}
}

// listenClosed follows the close of the open listen to unsubscribe from
// its last resource: that close is the unsubscribe. (A listen replaced by
// another closes quietly.)
func (m *Model) listenClosed(msg listenClosedMsg) {
	l := &m.features.listen
	if msg.call != l.cur || l.change.uri == "" || l.next != nil {
		if msg.err != nil {
			m.setStatus("closing subscriptions/listen #"+seqText(msg.call)+": "+termtext.Line(msg.err.Error()), true)
		}
		return
	}
	change := l.change
	l.change = subChange{}
	if msg.err != nil {
		m.subscribeFailed(change)
		m.setStatus("unsubscribe from "+termtext.Line(change.uri)+": closing subscriptions/listen #"+seqText(msg.call)+": "+
			termtext.Line(msg.err.Error()), true)
		return
	}
	l.cur, l.curURIs = nil, nil
	m.setSubscriptions(nil)
	m.setStatus(strings.TrimSpace("unsubscribed from "+termtext.Line(change.uri)+": closed subscriptions/listen #"+seqText(msg.call)+" "+
		closeHow(msg.wire)), false)
}

// subscribeFailed puts uri back where it was before the press of s.
func (m *Model) subscribeFailed(c subChange) {
	if c.subscribe {
		delete(m.features.subs, c.uri)
	} else if c.uri != "" {
		m.features.subs[c.uri] = subSubscribed
	}
}

// seqText is a request's number, as its row and the status name it.
func seqText(c *session.Call) string { return strconv.FormatUint(c.Seq(), 10) }

// eraKeyHelp names what s, V and p do in the session's era: in
// 2026-07-28 they subscribe through subscriptions/listen, set the level
// sent with each request, and probe with server/discover.
func (m *Model) eraKeyHelp(modern bool) {
	g := &m.c.Keys.Global
	if modern {
		g.Subscribe.SetHelp("s", "subscribe (listen)")
		g.LogLevel.SetHelp("V", "log level (per request)")
		g.Ping.SetHelp("p", "ping (server/discover)")
		return
	}
	g.Subscribe.SetHelp("s", "subscribe")
	g.LogLevel.SetHelp("V", "log level")
	g.Ping.SetHelp("p", "ping")
}

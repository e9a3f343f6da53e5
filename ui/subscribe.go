package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// subState is where a subscription is.
type subState int

const (
	subNone subState = iota
	subSubscribing
	subSubscribed
	subUnsubscribing
)

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
	switch m.features.subs[uri] {
	case subSubscribing, subUnsubscribing:
		m.setStatus("already asked; waiting for the server's answer", true)
		return nil
	case subSubscribed:
		method, p, st = "resources/unsubscribe", purpose{kind: purposeUnsubscribe, uri: uri}, subUnsubscribing
	}
	if !m.declared(method) {
		return nil
	}
	if m.features.subs == nil {
		m.features.subs = map[string]subState{}
	}
	if m.conn.Session.Era2026() {
		return m.subscribeModern(uri, st == subSubscribing)
	}
	m.features.subs[uri] = st
	return requestCmd(m.gen, m.conn.Session, method, mcp.ReadResourceParams(uri), m.bounds(), p, method+" "+termtext.Line(uri))
}

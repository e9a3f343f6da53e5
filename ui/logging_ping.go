package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// pingTimeout bounds the ping key's ping.
const pingTimeout = 10 * time.Second

// ping sends the era's liveness probe (ping; server/discover in
// 2026-07-28, which removed ping); its round trip is shown when it answers.
func (m *Model) ping() tea.Cmd {
	if !m.ready() {
		return nil
	}
	method := mcp.PingMethod(m.conn.Session)
	return requestCmd(m.gen, m.conn.Session, method, nil, callBounds{each: pingTimeout}, purpose{kind: purposePing, method: method}, method)
}

// openLogLevel asks for the level the server should log at.
func (m *Model) openLogLevel() tea.Cmd {
	if !m.ready() || (!m.conn.Session.Era2026() && !m.declared("logging/setLevel")) {
		return nil
	}
	level := m.logs.level
	if level == "" {
		level = "debug"
	}
	return m.prompt.Open(promptLogLevel, "log level ("+strings.Join(mcp.LogLevels, ", ")+"):", level)
}

// setLogLevel sends logging/setLevel; in 2026-07-28, which removed it,
// the level goes in the _meta of every request sent from now on, and
// nothing is sent now.
func (m *Model) setLogLevel(level string) tea.Cmd {
	params, err := mcp.SetLevelParams(level)
	if err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	if !m.ready() {
		return nil
	}
	if m.conn.Session.Era2026() {
		if err := m.conn.Session.SetLogLevel(level); err != nil {
			m.setStatus(err.Error(), true)
			return nil
		}
		m.logs.level = level
		m.setStatus("log level "+level+": sent in the _meta ("+session.MetaLogLevel+") of every request from now on; protocol "+
			m.conn.Session.Peer().ProtocolVersion+" has no logging/setLevel", false)
		return nil
	}
	return requestCmd(m.gen, m.conn.Session, "logging/setLevel", params, m.bounds(), purpose{kind: purposeSetLevel, level: level},
		"logging/setLevel "+level)
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
			if r := m.store.Get(n.Related.Seq); r != nil {
				what = r.Label()
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
		return m.relistEntries(false)
	case mcp.PromptsListChanged:
		return m.relistEntries(true)
	}
	return nil
}

// pingNote says why a liveness probe was not a ping.
func pingNote(method string) string {
	if method == "ping" {
		return ""
	}
	return " (the era's liveness probe: this protocol has no ping)"
}

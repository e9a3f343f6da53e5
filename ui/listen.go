package ui

import (
	"encoding/json"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// In protocol 2026-07-28 change notifications come only on a
// subscriptions/listen stream the client opens and opts in on. The UI
// opens one after the handshake for the list changes the server says it
// notifies, and shows it as a row like any request: its acknowledgement
// and the notifications it carried; c closes it by the era's rule.

// listenCmd opens the subscription the server's capabilities call for,
// or does nothing: a legacy session, or a server that notifies nothing.
// Resource subscriptions replace it with one that names them too
// (subscribe_listen.go).
func listenCmd(gen int, s *session.Session) tea.Cmd {
	if !s.Era2026() {
		return nil
	}
	return openListenCmd(gen, s, nil, subChange{})
}

// listenBadge sums a subscription up on its row.
func listenBadge(r *rows.Row) (badge, bool) {
	if r.Method != "subscriptions/listen" || r.Incoming {
		return badge{}, false
	}
	if r.Listen == nil || !r.Listen.Acked {
		return badge{text: "not acknowledged yet", short: []string{"no ack"}}, true
	}
	n := english.Plural(r.Listen.Count, "notification")
	if r.State != session.Pending {
		return badge{text: "closed after " + n, short: []string{strconv.Itoa(r.Listen.Count) + " notes"}}, true
	}
	return badge{text: "listening: " + n, short: []string{strconv.Itoa(r.Listen.Count) + " notes"}}, true
}

// listenLines are the detail of a subscription row.
func (d *detail) listenLines() []string {
	st := d.c.Styles
	var out []string
	if info := d.row.Info; info != nil && d.row.State == session.Completed {
		why := "the server ended the subscription (a final response)"
		if info.EndedByPeer != "" {
			why = info.EndedByPeer
		}
		out = append(out, st.Key.Render("ended")+" "+st.Muted.Render(termtext.Line(why)))
	}
	l := d.row.Listen
	if l == nil || !l.Acked {
		return append(out, st.Muted.Render("subscription: not acknowledged yet"))
	}
	out = append(out, st.Key.Render("subscription")+st.Muted.Render(" acknowledged "+termtext.Line(string(l.Filter))+
		" · "+english.Plural(l.Count, "notification")))
	var f mcp.ListenFilter
	if json.Unmarshal(l.Filter, &f) == nil && len(f.ResourceSubscriptions) > 0 {
		out = append(out, st.Muted.Render("  carries the subscriptions of "+d.c.Keys.Global.Subscribe.Help().Key+
			": 2026-07-28 has no resources/subscribe"))
	}
	for _, n := range l.Last {
		out = append(out, "  "+st.Muted.Render(d.rel(n.At))+" "+termtext.Line(n.Method))
	}
	return out
}

// resultMetaLines say what a result says about itself beyond its payload:
// a resultType other than complete, and in 2026-07-28 how long a list or
// read may be cached (ttlMs, cacheScope).
func resultMetaLines(st *styles, result []byte) []string {
	meta := mcp.ReadResultMeta(result)
	var out []string
	if meta.Type != session.ResultComplete {
		out = append(out, st.Key.Render("resultType")+" "+termtext.Line(meta.Type))
	}
	if c := meta.Describe(); c != "" {
		out = append(out, st.Key.Render("cache")+" "+st.Muted.Render(termtext.Line(c)))
	}
	return out
}

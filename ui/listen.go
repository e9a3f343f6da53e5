package ui

import (
	"encoding/json"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// In protocol 2026-07-28 change notifications come only on a
// subscriptions/listen stream the client opens and opts in on. The UI
// opens one after the handshake for the list changes the server says it
// notifies, and shows it as a row like any request: its acknowledgement
// and the notifications it carried; c closes it by the era's rule.

// rowListenNotes is how many of a subscription's notifications a row
// keeps for the detail.
const rowListenNotes = 20

// listening is what a subscriptions/listen row heard.
type listening struct {
	acked  bool
	filter []byte // as acknowledged
	count  int
	last   []session.SubscriptionNote
}

// listenCmd opens the subscription the server's capabilities call for,
// or does nothing: a legacy session, or a server that notifies nothing.
// Resource subscriptions replace it with one that names them too
// (rest_listen.go).
func listenCmd(gen int, s *session.Session) tea.Cmd {
	if !s.Era2026() {
		return nil
	}
	return openListenCmd(gen, s, nil, subChange{})
}

// listened files a subscription's notification under its row.
func (s *requestStore) listened(e session.SubscriptionNotified) *requestRow {
	r := s.bySeq[e.Ref.Seq]
	if r == nil {
		return nil
	}
	if r.listen == nil {
		r.listen = &listening{}
	}
	l := r.listen
	if e.Note.Method == "notifications/subscriptions/acknowledged" {
		l.acked = true
		l.filter = ackedFilter(e.Note.Params)
	} else {
		l.count++
		if len(l.last) == rowListenNotes {
			l.last = append(l.last[:0], l.last[1:]...)
		}
		l.last = append(l.last, e.Note)
	}
	r.touch()
	return r
}

// ackedFilter is the notifications member of an acknowledgement's params.
func ackedFilter(params []byte) []byte {
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Notifications
}

// listenBadge sums a subscription up on its row.
func listenBadge(r *requestRow) (badge, bool) {
	if r.method != "subscriptions/listen" || r.incoming {
		return badge{}, false
	}
	if r.listen == nil || !r.listen.acked {
		return badge{text: "not acknowledged yet", short: []string{"no ack"}}, true
	}
	n := english.Plural(r.listen.count, "notification")
	if r.state != session.Pending {
		return badge{text: "closed after " + n, short: []string{strconv.Itoa(r.listen.count) + " notes"}}, true
	}
	return badge{text: "listening: " + n, short: []string{strconv.Itoa(r.listen.count) + " notes"}}, true
}

// listenLines are the detail of a subscription row.
func (d *detail) listenLines() []string {
	st := d.c.Styles
	var out []string
	if info := d.row.info; info != nil && d.row.state == session.Completed {
		why := "the server ended the subscription (a final response)"
		if info.EndedByPeer != "" {
			why = info.EndedByPeer
		}
		out = append(out, st.Key.Render("ended")+" "+st.Muted.Render(termtext.Line(why)))
	}
	l := d.row.listen
	if l == nil || !l.acked {
		return append(out, st.Muted.Render("subscription: not acknowledged yet"))
	}
	out = append(out, st.Key.Render("subscription")+st.Muted.Render(" acknowledged "+termtext.Line(string(l.filter))+
		" · "+english.Plural(l.count, "notification")))
	var f mcp.ListenFilter
	if json.Unmarshal(l.filter, &f) == nil && len(f.ResourceSubscriptions) > 0 {
		out = append(out, st.Muted.Render("  carries the subscriptions of "+d.c.Keys.Global.Subscribe.Help().Key+
			": 2026-07-28 has no resources/subscribe"))
	}
	for _, n := range l.last {
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

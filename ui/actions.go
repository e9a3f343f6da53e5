package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// The actions below are what keys ask for: calls and cancellations. They
// check what the UI can see for itself and leave every protocol rule to
// the session, in a command.

// callTool sends tools/call with the current timeout.
func (m *Model) callTool(name string, args []byte) tea.Cmd {
	if m.conn == nil {
		return nil
	}
	if _, err := mcp.CallToolParams(name, args); err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	t := mcp.Tool{Name: name}
	for _, known := range m.tools.Tools() {
		if known.Name == name {
			t = known
		}
	}
	m.calledTool = true
	m.setStatus("calling "+termtext.Line(name)+"…", false)
	return toolCallCmd(m.gen, m.conn.Session, t, args, m.bounds(), m.listOptions())
}

// listOptions are how tools are listed: over Streamable HTTP in protocol
// 2026-07-28 a tool with invalid x-mcp-header marks is left out.
func (m *Model) listOptions() mcp.ListOptions {
	return mcp.ListOptions{Force: m.opts.Force, RejectBadHeaders: m.conn != nil && m.conn.Transport() == "http" && m.conn.Session.Era2026()}
}

// cancelSelected cancels the selected request.
func (m *Model) cancelSelected(reason string) tea.Cmd {
	r := m.table.Selected()
	if r == nil {
		m.setStatus("no request selected", true)
		return nil
	}
	return m.cancelRow(r, reason)
}

// cancelRow asks the session to cancel r; the session refuses what it
// must not cancel, such as requests the server sent us.
func (m *Model) cancelRow(r *rows.Row, reason string) tea.Cmd {
	switch {
	case r.IsStray():
		m.setStatus("stray traffic is not a request of ours: nothing to cancel", true)
		return nil
	case m.offline():
		return nil
	case m.abandonRounds(r):
		return nil
	}
	return cancelCmd(m.gen, m.conn.Session, r, reason)
}

// cancelled reports what Cancel did.
func (m *Model) cancelled(msg cancelDoneMsg) {
	if m.refused(msg.label, msg.err) {
		return
	}
	m.setStatus(fmt.Sprintf("cancel requested for %s: %s", termtext.Line(msg.label), termtext.Quote(msg.reason)), false)
}

// refused shows the session's refusal of what label names, when err
// is one, in the session's words.
func (m *Model) refused(label string, err error) bool {
	if err == nil {
		return false
	}
	m.setStatus(termtext.Line(label)+": "+termtext.Line(err.Error()), true)
	return true
}

// offline says "not connected" when there is no connection to act on.
func (m *Model) offline() bool {
	if m.conn != nil {
		return false
	}
	m.setStatus("not connected", true)
	return true
}

// cancelAll cancels every pending request, or, while a filter hides
// rows, only the pending rows it shows: C cancels what the screen lists.
func (m *Model) cancelAll() tea.Cmd {
	if m.offline() {
		return nil
	}
	rows, filtered := m.table.Filtered()
	// Rows that need input are abandoned: cancelling between rounds.
	abandoned, shown := 0, rows
	if !filtered {
		shown = m.store.Rows
	}
	for _, r := range shown {
		if r.NeedsInput() && m.abandonRounds(r) {
			abandoned++
		}
	}
	if !filtered {
		return withAbandoned(cancelAllCmd(m.gen, m.conn.Session, reasonUser), abandoned)
	}
	var refs []session.Ref
	for _, r := range rows {
		if r.State == session.Pending && !r.Incoming && !r.IsStray() {
			refs = append(refs, r.Ref())
		}
	}
	hidden := m.store.Counts[session.Pending] - len(refs)
	return withAbandoned(cancelRowsCmd(m.gen, m.conn.Session, refs, reasonUser, m.table.Filter(), hidden), abandoned)
}

// withAbandoned adds to cmd's cancelAllDoneMsg how many rows that needed
// input it abandoned.
func withAbandoned(cmd tea.Cmd, n int) tea.Cmd {
	if n == 0 {
		return cmd
	}
	return func() tea.Msg {
		msg := cmd()
		if done, ok := msg.(cancelAllDoneMsg); ok {
			done.abandoned = n
			return done
		}
		return msg
	}
}

func (m *Model) cancelledAll(msg cancelAllDoneMsg) {
	if msg.abandoned > 0 {
		defer func() {
			m.setStatus(m.status+"; "+english.Plural(msg.abandoned, "request")+" that needed input abandoned between rounds", false)
		}()
	}
	if !msg.filtered {
		if msg.n == 0 {
			m.setStatus("nothing to cancel: no request is pending", true)
			return
		}
		if msg.n == 1 {
			m.setStatus("cancelling the one pending request", false)
			return
		}
		m.setStatus(fmt.Sprintf("cancelling all %d pending requests", msg.n), false)
		return
	}
	shown := "the filter /" + termtext.Line(msg.filter) + " shows"
	left := ""
	if msg.hidden > 0 {
		left = "; " + english.Plural(msg.hidden, "hidden pending request") + " left running"
	}
	if msg.n == 0 {
		m.setStatus("nothing to cancel: no pending request among those "+shown+left, true)
		return
	}
	m.setStatus("cancelling "+english.Plural(msg.n, "pending request")+" that "+shown+left, false)
}

// rerun sends the selected request again with the same method and
// params; the session gives it a new id and progress token.
func (m *Model) rerun() tea.Cmd {
	r := m.table.Selected()
	switch {
	case r == nil:
		m.setStatus("no request selected", true)
		return nil
	case r.IsStray() || r.Incoming:
		m.setStatus("only requests mcpoke sent can be run again", true)
		return nil
	case r.Method == "initialize":
		m.setStatus("initialize runs once per connection; "+m.c.Keys.Global.Reconnect.Help().Key+" reconnects", true)
		return nil
	case m.offline():
		return nil
	}
	if r.Method == "tools/call" {
		m.calledTool = true
	}
	// The status names what was re-run until the send reports its new id,
	// and that report keeps saying so: it can replace this one at once.
	what := termtext.Line(r.Method)
	if r.Lost() {
		what = "lost " + termtext.Line(r.Label()) + " again"
		m.setStatus("re-issuing lost "+termtext.Line(r.Label())+" under a new id…", false)
	} else {
		m.setStatus("running "+termtext.Line(r.Label())+" again…", false)
	}
	return callCmd(m.gen, m.conn.Session, r.Method, r.Params, m.bounds(), what)
}

// parseTimeout reads "5s", "500ms", or a plain number of seconds; empty
// or zero means none.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		s = strconv.FormatFloat(f, 'f', -1, 64) + "s"
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("timeout %q: use a duration such as 5s or 500ms", s)
	}
	return d, nil
}

func timeoutText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// openTimeout edits the timeout of the selected request while it is
// pending, else the timeout for new calls; the prompt says which.
func (m *Model) openTimeout() tea.Cmd {
	if r := m.table.Selected(); r != nil && m.focus != focusTools && r.State == session.Pending && !r.Incoming && !r.IsStray() {
		m.prompt.seq = r.Seq
		return m.prompt.Open(promptRequestTimeout, "timeout of "+termtext.Line(r.Label())+
			" from now (5s, 500ms; 0 for none; focus the tools to set it for new calls):", timeoutText(r.Timeout))
	}
	return m.prompt.Open(promptTimeout, "timeout for new calls (5s, 500ms; 0 for none):", timeoutText(m.timeout))
}

// setRequestTimeout gives the request seq a new timeout from now.
func (m *Model) setRequestTimeout(seq uint64, value string) tea.Cmd {
	d, err := parseTimeout(value)
	r := m.store.Get(seq)
	switch {
	case err != nil:
		m.setStatus(err.Error(), true)
		return nil
	case r == nil:
		m.setStatus("that request is gone", true)
		return nil
	case m.offline():
		return nil
	}
	return setTimeoutCmd(m.gen, m.conn.Session, r, d)
}

// timeoutSet reports what SetTimeout did.
func (m *Model) timeoutSet(msg timeoutSetMsg) {
	if m.refused(msg.label, msg.err) {
		return
	}
	label := termtext.Line(msg.label)
	if r := m.store.Get(msg.seq); r != nil {
		r.Timeout = msg.timeout
		r.Touch()
	}
	if msg.timeout == 0 {
		m.setStatus(label+" now has no timeout", false)
	} else {
		m.setStatus(label+" times out "+formatDuration(msg.timeout)+" from now", false)
	}
}

// timeoutLine says how long a request waits, for its detail.
func timeoutLine(r *rows.Row) string {
	switch {
	case r.Timeout == 0 && r.MaxTimeout == 0:
		return "timeout none"
	case r.Timeout == 0:
		return "timeout none · at most " + formatDuration(r.MaxTimeout) + " in all"
	}
	line := "timeout " + formatDuration(r.Timeout)
	if r.Resets {
		line += ", restarted by progress"
	}
	if r.MaxTimeout > 0 {
		line += " · at most " + formatDuration(r.MaxTimeout) + " in all"
	}
	return line
}

// toolsListChanged is the server's word that its tools changed.
const toolsListChanged = "notifications/tools/list_changed"

// relistTools runs tools/list again and refreshes the list in place, on
// the same connection: the history stays. byServer says the server's
// notifications/tools/list_changed asked for it, not the re-list key.
// A re-list already under way takes the place of another.
func (m *Model) relistTools(byServer bool) tea.Cmd {
	if m.conn == nil || m.header.state != connReady {
		if !byServer {
			m.setStatus("not connected; press "+m.c.Keys.Global.Reconnect.Help().Key+" to reconnect", true)
		}
		return nil
	}
	m.relist.byServer = m.relist.byServer || byServer
	if m.relist.running {
		return nil
	}
	m.relist.running = true
	if byServer {
		m.setStatus("the server's tools changed: listing them again…", false)
	} else {
		m.setStatus("listing tools again…", false)
	}
	list := listToolsCmd(m.gen, m.conn.Session, m.listOptions())
	return func() tea.Msg {
		msg := list().(toolsListedMsg)
		msg.relist = true
		return msg
	}
}

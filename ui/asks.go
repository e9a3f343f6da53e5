package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// tuiFeatures are what the UI declares: everything, since a person is
// there to answer.
var tuiFeatures = mcp.ClientFeatures{Roots: true, Sampling: true, ElicitForm: true, ElicitURL: true, Tasks: true, FollowTasks: true}

// askState is the server's questions as the UI keeps them: the client
// side of the current connection, the questions waiting for the person,
// and the panel that shows one of them.
type askState struct {
	// roots outlive connections: a root added stays for the next one.
	roots  *mcp.RootList
	client *mcp.ClientSide
	feed   *askFeed
	// open are the questions waiting for an answer, by request Seq.
	open  map[uint64]*mcp.Question
	panel *askPanel
	// queued are more questions of one row, after its open one: a multi
	// round-trip round may ask several at once.
	queued map[uint64][]*mcp.Question
}

func newAskState(roots []mcp.Root) *askState {
	return &askState{roots: mcp.NewRootList(roots...), open: map[uint64]*mcp.Question{}, queued: map[uint64][]*mcp.Question{}}
}

// reset forgets the questions of a connection that is gone.
func (a *askState) reset() {
	if a.feed != nil {
		a.feed.Stop()
	}
	a.client, a.feed, a.panel = nil, nil, nil
	a.open = map[uint64]*mcp.Question{}
	a.queued = map[uint64][]*mcp.Question{}
}

// dequeue makes the next queued question of seq the open one.
func (a *askState) dequeue(seq uint64) *mcp.Question {
	qs := a.queued[seq]
	if len(qs) == 0 {
		return nil
	}
	a.open[seq] = qs[0]
	if a.queued[seq] = qs[1:]; len(qs) == 1 {
		delete(a.queued, seq)
	}
	return qs[0]
}

// connectCmd starts the server; with Options.ConnectAnswering, a client
// side answers the server's requests by asking here.
func (m *Model) connectCmd() tea.Cmd {
	if m.opts.ConnectAnswering == nil {
		return connectCmd(m.gen, m.opts.Connect, m.opts.frameInterval)
	}
	gen, interval, start, roots := m.gen, m.opts.frameInterval, m.opts.ConnectAnswering, m.asks.roots
	return func() tea.Msg {
		feed := newAskFeed()
		cs := mcp.NewClientSide(mcp.ClientSideOptions{Features: tuiFeatures, Roots: roots, Ask: feed.ask, Event: feed.event})
		conn, err := start(context.Background(), cs)
		if err != nil {
			feed.Stop()
			return connectedMsg{forGen: forGen{gen}, err: err}
		}
		return connectedMsg{forGen: forGen{gen}, conn: conn, feed: rows.SubscribeFeed(conn.Session, conn, interval), client: cs, asks: feed}
	}
}

// asked takes what the client side handed over: questions to show or
// answer by policy, tasks that changed, url elicitations completed.
func (m *Model) asked(msg askedMsg) tea.Cmd {
	cmds := []tea.Cmd{nextAskCmd(m.gen, m.asks.feed)}
	for _, item := range msg.items {
		switch e := item.(type) {
		case *mcp.Question:
			cmds = append(cmds, m.question(e))
		case mcp.TaskChanged:
			n := m.store.AskNote(e.Ref.Seq)
			n.TaskID, n.TaskStatus, n.TaskMessage = e.TaskID, e.Status, e.StatusMessage
			m.store.TouchSeq(e.Ref.Seq)
		case mcp.ElicitationComplete:
			m.elicitationComplete(e)
		}
	}
	return tea.Batch(cmds...)
}

// question takes a new question: a policy answers what it covers; else
// it waits for the person, in its panel when nothing else is open.
func (m *Model) question(q *mcp.Question) tea.Cmd {
	n := m.store.AskNote(q.Ref.Seq)
	n.Q, n.Kind = q, q.Kind()
	m.store.TouchSeq(q.Ref.Seq)
	label := askLabel(q)
	if how := m.opts.Policy.Describe(q); how != "not answered" {
		n.Answer = how
		m.setStatus(label+": answered "+how, false)
		gen, pol := m.gen, m.opts.Policy
		return func() tea.Msg { return answeredMsg{forGen: forGen{gen}, seq: q.Ref.Seq, what: how, err: pol.Answer(q)} }
	}
	n.Waiting = true
	watch := watchQuestionCmd(m.gen, q)
	if open := m.asks.open[q.Ref.Seq]; open != nil && open != q {
		m.asks.queued[q.Ref.Seq] = append(m.asks.queued[q.Ref.Seq], q)
		return watch
	}
	m.asks.open[q.Ref.Seq] = q
	if m.asks.panel == nil && !m.editing && !m.prompt.active {
		return tea.Batch(watch, m.openPanel(q))
	}
	m.setStatus(fmt.Sprintf("%s waits for you: select its row and press %s", label, m.c.Keys.Nav.Open.Help().Key), false)
	return watch
}

// askLabel names a question in messages: "elicitation (form) #3".
func askLabel(q *mcp.Question) string {
	what := "sampling"
	if q.Elicit != nil {
		what = "elicitation (" + q.Elicit.Mode + ")"
	}
	return what + " #" + termtext.Line(q.Ref.ID.String())
}

// openPanel shows q's panel in place of the requests.
func (m *Model) openPanel(q *mcp.Question) tea.Cmd {
	p := newAskPanel(m.c, q, m.serverName())
	m.asks.panel = p
	p.SetSize(m.layout.editor.w, m.layout.editor.h)
	for _, panes := range m.areaPanes() {
		for _, pn := range panes {
			pn.SetFocused(false)
		}
	}
	m.setStatus("the server asks: "+askLabel(q), false)
	return p.Focus()
}

// closePanel gives the keys back to the pane that had them when the
// question came (the panel never moved m.focus); the question's row is
// selected in the requests.
func (m *Model) closePanel() {
	m.asks.panel = nil
	m.setFocus(m.focus)
}

// serverName is who is asking, as the spec asks a client to make clear.
func (m *Model) serverName() string {
	if n := m.header.peer.ServerInfo.Name; n != "" {
		return termtext.Line(n)
	}
	return termtext.Line(m.header.label)
}

// withdrawn takes a question the server (or the task's end) took back:
// its panel closes and nothing will be sent.
func (m *Model) withdrawn(msg withdrawnMsg) {
	q := m.asks.open[msg.seq]
	if q == nil {
		return // answered already: its request ended
	}
	delete(m.asks.open, msg.seq)
	delete(m.asks.queued, msg.seq)
	n := m.store.AskNote(msg.seq)
	n.Waiting, n.Withdrawn = false, msg.why
	m.store.TouchSeq(msg.seq)
	if m.header.state == connClosed {
		// Why the connection closed says more, and how to reconnect.
		if p := m.asks.panel; p != nil && p.q == q {
			m.closePanel()
		}
		return
	}
	if p := m.asks.panel; p != nil && p.q == q {
		m.closePanel()
		m.table.SelectSeq(msg.seq)
		m.setStatus(askLabel(q)+": "+msg.why+"; the panel closed and no answer is sent", true)
		return
	}
	m.setStatus(askLabel(q)+": "+msg.why+"; no answer is sent", true)
}

// answer sends the panel's answer and closes it.
func (m *Model) answer(q *mcp.Question, what string, result []byte, err error) tea.Cmd {
	delete(m.asks.open, q.Ref.Seq)
	n := m.store.AskNote(q.Ref.Seq)
	n.Waiting, n.Answer = false, what
	m.store.TouchSeq(q.Ref.Seq)
	m.closePanel()
	m.table.SelectSeq(q.Ref.Seq)
	cmd := answerCmd(m.gen, q, what, result, err)
	if next := m.asks.dequeue(q.Ref.Seq); next != nil {
		n.Waiting = true
		return tea.Batch(cmd, m.openPanel(next))
	}
	return cmd
}

// answered reports whether the answer was taken.
func (m *Model) answered(msg answeredMsg) {
	var tooLate *mcp.TooLateError
	n := m.store.AskNote(msg.seq)
	switch {
	case errors.As(msg.err, &tooLate):
		n.NotSent = tooLate.Error()
		m.setStatus(msg.what+": "+tooLate.Error(), true)
	case msg.err != nil:
		n.NotSent = msg.err.Error()
		m.setStatus(msg.what+": "+msg.err.Error(), true)
	case m.retrySent(msg.seq):
		// The round's retry says more, and may have been reported first.
	default:
		id := strconv.FormatUint(msg.seq, 10)
		if r := m.store.Get(msg.seq); r != nil {
			id = termtext.Line(r.ID.String()) // the server's id, as its row shows
		}
		m.setStatus("answered #"+id+": "+msg.what, false)
		if q := n.Q; q != nil {
			m.setStatus(askLabel(q)+": "+msg.what, false)
		}
	}
	m.store.TouchSeq(msg.seq)
}

// reopen shows the panel of the selected row's question, if it waits.
func (m *Model) reopen(r *rows.Row) (tea.Cmd, bool) {
	if r == nil || (!r.Incoming && !r.NeedsInput()) {
		return nil, false
	}
	q := m.asks.open[r.Seq]
	if q == nil {
		return nil, false
	}
	return m.openPanel(q), true
}

// elicitationComplete marks a url elicitation the server says is done.
func (m *Model) elicitationComplete(e mcp.ElicitationComplete) {
	if !e.Known {
		m.setStatus("notifications/elicitation/complete for an unknown or finished elicitation "+
			termtext.Quote(e.ElicitationID)+": ignored", false)
		return
	}
	n := m.store.AskNote(e.Ref.Seq)
	n.CompletedAt = e.At
	m.store.TouchSeq(e.Ref.Seq)
	m.setStatus("the server says url elicitation #"+termtext.Line(e.Ref.ID.String())+" is complete", false)
}

// addRoot asks for a directory to offer the server as a root.
func (m *Model) addRoot() tea.Cmd {
	if m.asks.client == nil || m.conn == nil {
		m.setStatus("roots are offered once connected (the server must be started with the UI's answers)", true)
		return nil
	}
	return m.prompt.Open(promptRoot, "add a root (a directory):", "")
}

// addRootCmd adds the root and tells the server its roots changed.
func addRootCmd(gen int, cs *mcp.ClientSide, conn *connect.Conn, dir string) tea.Cmd {
	return func() tea.Msg {
		r, err := mcp.ParseRoot(dir, ".")
		if err != nil {
			return rootAddedMsg{forGen: forGen{gen}, err: err}
		}
		changed, err := cs.AddRoot(conn.Session, r)
		return rootAddedMsg{forGen: forGen{gen}, root: r, changed: changed, err: err}
	}
}

// rootAdded reports the new root.
func (m *Model) rootAdded(msg rootAddedMsg) {
	switch {
	case msg.err != nil:
		m.setStatus("root not added: "+msg.err.Error(), true)
	case !msg.changed:
		m.setStatus("the server already has root "+termtext.Line(msg.root.URI), false)
	default:
		m.setStatus(fmt.Sprintf("root %s added (%d in all); notifications/roots/list_changed sent",
			termtext.Line(msg.root.URI), len(m.asks.roots.Roots())), false)
	}
}

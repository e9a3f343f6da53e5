// Package ui is mcpoke's terminal interface: a Bubble Tea program that
// shows every request of an MCP session, calls tools, and cancels
// requests on a keypress. It reads session events and calls session
// methods; it holds no protocol rules of its own and never touches bytes.
package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// focusArea is the pane that gets navigation keys.
type focusArea int

const (
	focusTools focusArea = iota
	focusRequests
	focusBottom
	focusAreas
)

// bottomKind says which pane shows under the requests.
type bottomKind int

const (
	bottomDetail bottomKind = iota
	bottomWire
	bottomStderr
	bottomLog
)

// Model is the root model of the UI.
type Model struct {
	c    *common
	opts Options

	gen int // connection generation; bumped on reconnect
	// attachHeld: the ids (JSON text) whose answer the proxy holds at
	// this UI's request, which enter releases.
	attachHeld map[string]bool
	conn       *connect.Conn
	feed       *rows.Feed

	header *header
	tools  *toolList
	store  *rows.Store
	table  *requestTable
	detail *detail
	cpu    serverCPU
	wire   *wireLog
	stderr *stderrPane
	editor *argEditor
	prompt *prompt
	help   help.Model
	login  *loginScreen
	// timeline takes the requests' place while timelineOn (d).
	timeline   *timeline
	timelineOn bool

	// resources, prompts and logs are the panes of the server's other
	// features (features.go): left says which list the left pane shows.
	resources *entryList
	prompts   *entryList
	logs      *logPane
	left      leftKind
	features  featureState

	// asks are the server's questions and the panel that answers one.
	asks *askState
	// health is the periodic ping (health.go).
	health health

	layout screenLayout
	focus  focusArea
	// focusBeforeTimeline is where the focus was when the timeline
	// opened: it goes back there when the timeline closes.
	focusBeforeTimeline focusArea
	bottom              bottomKind
	editing             bool
	fullHelp            bool

	status    string
	statusErr bool
	// calledTool: the user has called a tool; the demo hint goes away.
	calledTool bool
	timeout    time.Duration
	maxTimeout time.Duration
	quitting   bool
	forceArmed bool
	// relist is a tools/list run again on the same connection.
	relist struct{ running, byServer bool }
	// startErr is why the latest server did not start; see StartErr.
	startErr error
	ticking  bool

	// cancellable is the session's answer for the selected row.
	cancellable struct {
		seq   uint64
		state session.State
		err   error
		known bool
	}
}

// New returns the UI's root model.
func New(opts Options) *Model {
	if opts.now == nil {
		opts.now = time.Now
	}
	c := &common{Styles: newStyles(true), Keys: defaultKeyMap(), Now: opts.now, Animate: !opts.static,
		Width: 80, Height: 24}
	store := rows.NewStore()
	m := &Model{
		c:       c,
		opts:    opts,
		gen:     1,
		header:  newHeader(c),
		tools:   newToolList(c),
		store:   store,
		table:   newRequestTable(c, store),
		detail:  newDetail(c),
		wire:    newWireLog(c),
		stderr:  newStderrPane(c),
		editor:  newArgEditor(c),
		prompt:  newPrompt(c),
		login:   newLoginScreen(c),
		help:    help.New(),
		asks:    newAskState(opts.Roots),
		timeout: opts.Timeout,

		resources: newEntryList(c, "RESOURCES", "resources", 2),
		prompts:   newEntryList(c, "PROMPTS", "prompts", 3),
		logs:      newLogPane(c),
	}
	m.timeline = newTimeline(c, m.wire, settleWindow(opts.Settle))
	m.detail.cpuLine = m.cpu.line
	if opts.ServerSpans != nil {
		m.timeline.serverSpans = opts.ServerSpans.Trace
	}
	m.maxTimeout = opts.MaxTimeout
	m.header.timeout = opts.Timeout
	m.header.cancelMode = opts.CancelMode
	m.header.auth = opts.AuthState
	m.health.interval, m.header.health = opts.PingInterval, &m.health
	m.help.Styles = c.Styles.Help
	m.setFocus(focusTools)
	m.resize(c.Width, c.Height)
	return m
}

// Init implements tea.Model: ask the terminal's background, connect.
func (m *Model) Init() tea.Cmd {
	if m.opts.Attached != nil {
		return tea.Batch(tea.RequestBackgroundColor, m.attachInit(), m.startTicking())
	}
	return tea.Batch(tea.RequestBackgroundColor, m.connectCmd(), m.startTicking(), m.waitSpans())
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	return m, tea.Batch(cmd, m.syncSelection())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if g, ok := msg.(ofGeneration); ok && g.generation() != m.gen {
		return m.stale(msg)
	}
	if cmd, ok := m.loginUpdate(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg:
		m.c.Styles = newStyles(msg.IsDark())
		m.help.Styles = m.c.Styles.Help
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseClickMsg:
		return m.handleClick(msg)
	case tea.MouseWheelMsg:
		m.handleWheel(msg)
	case connectedMsg:
		return m.connected(msg)
	case initializedMsg:
		return m.initialized(msg)
	case toolsListedMsg:
		before := len(m.tools.Tools())
		m.tools.SetTools(msg.tools, msg.err)
		relisted, byServer := msg.relist, m.relist.byServer
		if msg.relist { // the first list ending says nothing of a relist
			m.relist.running, m.relist.byServer = false, false
		}
		switch {
		case errors.Is(msg.err, mcp.ErrNotDeclared): // nothing was sent, so nothing failed
			m.setStatus(msg.err.Error()+"; mcpoke --force sends it anyway", true)
		case msg.err != nil:
			m.setStatus("tools/list failed: "+strings.TrimPrefix(msg.err.Error(), "tools/list: "), true)
		case msg.incomplete != nil:
			m.setStatus(msg.incomplete.Error(), true)
		case len(msg.rejected) > 0:
			r := msg.rejected[0]
			m.setStatus(fmt.Sprintf("%s left out: tool %s's x-mcp-header is invalid (%v)", english.Plural(len(msg.rejected), "tool"),
				termtext.Line(r.Name), termtext.Line(r.Why.Error())), true)
		case relisted:
			why := "tools listed again"
			if byServer {
				why = "the server's tools changed (tools/list_changed)"
			}
			m.setStatus(fmt.Sprintf("%s: %s, was %d", why, english.Plural(len(msg.tools), "tool"), before), false)
		}
	case feedMsg:
		cmds := m.applyBatch(msg.batch)
		if !msg.batch.Ended {
			cmds = append(cmds, nextCmd(m.gen, m.feed))
		}
		cmds = append(cmds, m.startTicking())
		return tea.Batch(cmds...)
	case callSentMsg:
		if msg.err != nil {
			m.setStatus(msg.what+": "+msg.err.Error(), true)
		} else if msg.seq != 0 && m.header.state == connReady {
			// Not once closed: why it closed matters more than this.
			m.setStatus(fmt.Sprintf("sent %s as request #%s", msg.what, termtext.Line(msg.id.String())), false)
		}
		if msg.reissueOf != 0 {
			m.store.Reissued(msg.reissueOf, msg.seq, msg.id, msg.err)
		}
		if msg.seq != 0 && (msg.reissueOf == 0 || m.selectedSeq() == msg.reissueOf) {
			m.table.SelectSeq(msg.seq)
		}
		return msg.next
	case cancelDoneMsg:
		m.cancelled(msg)
	case cpuMeasuredMsg:
		m.cpuMeasured(msg)
	case timeoutSetMsg:
		m.timeoutSet(msg)
	case cancelAllDoneMsg:
		m.cancelledAll(msg)
	case attachRepliedMsg:
		m.attachReplied(msg)
	case canCancelMsg:
		if msg.seq == m.cancellable.seq {
			m.cancellable.err, m.cancellable.known = msg.err, true
		}
	case infoMsg:
		m.store.SetInfo(msg.seq, msg.info)
		m.header.toolErrors = m.store.ToolErrors
		return tea.Batch(m.inputRequired(msg.seq), m.reissueLost(msg.seq))
	case spansArrivedMsg:
		return m.waitSpans() // the redraw that follows reads them
	case tickMsg:
		m.c.Frame++
		m.ticking = false
		return m.startTicking()
	case transcriptWrittenMsg:
		return m.transcriptWritten(msg)
	case closedForQuitMsg:
		return tea.Quit
	case entriesListedMsg, requestSentMsg, requestDoneMsg, completionDueMsg, contentsSavedMsg,
		listenOpenedMsg, listenEndedMsg, listenClosedMsg:
		return m.updateFeatures(msg)
	case healthDueMsg, healthSentMsg, healthDoneMsg:
		return m.updateHealth(msg)
	case askedMsg:
		return m.asked(msg)
	case withdrawnMsg:
		m.withdrawn(msg)
	case answeredMsg:
		m.answered(msg)
	case roundSentMsg:
		m.roundSent(msg)
	case rootAddedMsg:
		m.rootAdded(msg)
	case urlOpenedMsg:
		return m.urlOpened(msg)
	case taskFollowedMsg:
		m.taskFollowed(msg)
	default:
		// Blink and other messages of the focused input.
		if m.prompt.active {
			_, cmd := m.prompt.Update(msg)
			return cmd
		}
		if m.editing {
			_, _, cmd := m.editor.Update(msg)
			return cmd
		}
		if m.asks.panel != nil {
			return m.asks.panel.Blink(msg)
		}
	}
	return nil
}

// stale takes a result of work started for an older connection: nobody
// will use it, but a connection it opened must still be closed.
func (m *Model) stale(msg tea.Msg) tea.Cmd {
	if c, ok := msg.(connectedMsg); ok {
		if c.asks != nil {
			c.asks.Stop()
		}
		return closeCmd(c.conn, c.feed, reasonClosing, nil)
	}
	return nil
}

// startTicking schedules the next animation tick while something moves.
func (m *Model) startTicking() tea.Cmd {
	if !m.c.Animate || m.ticking || m.quitting {
		return nil
	}
	// Late traffic keeps a row's "still sending" live until it goes quiet.
	live := m.store.Counts[session.Pending]+m.store.Counts[session.Cancelling] > 0 ||
		m.header.state == connConnecting || m.header.state == connClosing ||
		m.c.Now().Sub(m.store.LastLateAt) < rows.StillSendingFor
	if !live {
		return nil
	}
	m.ticking = true
	return tickCmd()
}

// setStatus shows text on the status line. Errors can quote the server
// (stderr, error messages), so every caller's text is sanitized here;
// Line is idempotent, so callers that already did it lose nothing.
func (m *Model) setStatus(text string, isErr bool) {
	m.status, m.statusErr = termtext.Line(text), isErr
}

// resize lays the panes out for a new terminal size.
func (m *Model) resize(w, h int) {
	m.c.Width, m.c.Height = w, h
	// The help's height depends on its width: set that first.
	m.layout.help.w = max(w, minWidth)
	m.help.SetWidth(m.layout.help.w)
	helpH := 1
	if m.fullHelp {
		helpH = lipgloss.Height(m.helpView(true))
	}
	m.layout = computeLayout(w, h, m.header.Height(), helpH)
	for _, p := range m.placed() {
		p.SetSize(p.at.w, p.at.h)
	}
	if m.timelineOn && m.layout.timelineWide && m.focus == focusTools {
		m.setFocus(focusRequests) // the tools just went out of sight
	}
	if m.asks.panel != nil {
		m.asks.panel.SetSize(m.layout.editor.w, m.layout.editor.h)
	}
	m.help.SetWidth(m.layout.help.w)
}

// relayout recomputes the layout after something changed its shape.
func (m *Model) relayout() { m.resize(m.c.Width, m.c.Height) }

// setFocus moves keyboard focus to a pane.
func (m *Model) setFocus(f focusArea) {
	m.focus = f
	for area, panes := range m.areaPanes() {
		for _, p := range panes {
			p.SetFocused(focusArea(area) == f)
		}
	}
}

// setEditing opens or closes the argument editor; while it is open it
// has the keys, so no pane shows focus.
func (m *Model) setEditing(on bool) {
	m.editing = on
	if !on {
		m.setFocus(m.focus)
		return
	}
	for _, panes := range m.areaPanes() {
		for _, p := range panes {
			p.SetFocused(false)
		}
	}
}

// syncSelection shows the selected row in the detail pane and asks the
// session, once per row and state, whether it can be cancelled.
func (m *Model) syncSelection() tea.Cmd {
	r := m.table.Selected()
	if r == nil || r.IsStray() {
		m.cancellable.seq, m.cancellable.known = 0, false
		m.detail.SetRow(r, "")
		if m.timelineOn {
			m.timeline.SetRow(r)
		}
		return nil
	}
	var cmd tea.Cmd
	if m.conn != nil && (r.Seq != m.cancellable.seq || r.State != m.cancellable.state) {
		m.cancellable.seq, m.cancellable.state, m.cancellable.known = r.Seq, r.State, false
		cmd = canCancelCmd(m.gen, m.conn.Session, r.Ref())
	}
	if m.timelineOn {
		m.timeline.SetRow(r)
	}
	note := ""
	// Only worth saying for requests still running, and for initialize,
	// where the refusal is the point.
	if m.cancellable.known && (r.State == session.Pending || m.cancellable.err == session.ErrInitializeNotCancellable) {
		note = cancelNote(m.c.Keys, m.cancellable.err, true)
	}
	m.detail.SetRow(r, note)
	return cmd
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "mcpoke"
	return v
}

// render draws the whole screen. Every pane renders exactly its size,
// so the columns are joined line by line without measuring them.
func (m *Model) render() string {
	if m.login.active {
		return m.login.View(m.c.Width, m.c.Height)
	}
	var right string
	if m.editing {
		right = m.editor.View()
	} else if m.asks.panel != nil {
		right = m.asks.panel.View()
	} else if m.timelineOn {
		right = m.timeline.View()
	} else {
		right = m.table.View() + "\n" + m.below().View()
	}
	var b strings.Builder
	b.WriteString(m.header.View())
	sep := m.c.Styles.Separator.Render(paneEdge) + " "
	edge := m.c.Styles.FocusEdge.Render(focusEdge) + " "
	focused := m.focusedRect()
	if m.timelineOn && !m.editing && m.asks.panel == nil && m.layout.timelineWide {
		// The timeline has the whole body.
		b.WriteByte('\n')
		b.WriteString(right)
		b.WriteByte('\n')
		b.WriteString(m.statusView())
		b.WriteByte('\n')
		b.WriteString(m.helpView(m.fullHelp))
		return b.String()
	}
	left, rest := m.leftPane().View(), right
	for i := 0; i < m.layout.tools.h; i++ {
		var l, r string
		l, left, _ = strings.Cut(left, "\n")
		r, rest, _ = strings.Cut(rest, "\n")
		b.WriteByte('\n')
		b.WriteString(l)
		if y := m.layout.tools.y + i; y >= focused.y && y < focused.y+focused.h {
			b.WriteString(edge)
		} else {
			b.WriteString(sep)
		}
		b.WriteString(r)
	}
	b.WriteByte('\n')
	b.WriteString(m.statusView())
	b.WriteByte('\n')
	b.WriteString(m.helpView(m.fullHelp))
	return b.String()
}

// focusedRect is where the pane with the keys is: the separator is heavy
// along it.
func (m *Model) focusedRect() rect {
	switch {
	case m.editing, m.asks.panel != nil:
		return m.layout.editor
	case m.focus == focusTools:
		return m.layout.tools
	case m.timelineOn:
		return m.layout.timeline
	case m.focus == focusRequests:
		return m.layout.table
	}
	return m.layout.bottom
}

// statusView is the line above the help: the prompt, the last message,
// or the first-run hint.
func (m *Model) statusView() string {
	st := m.c.Styles
	w := m.layout.status.w
	switch {
	case m.prompt.active:
		return m.prompt.View()
	case m.status != "":
		s := st.Status
		if m.statusErr {
			s = st.StatusErr
		}
		return fit(s.Render(clip(m.status, w)), w)
	case m.opts.Demo && !m.calledTool && m.header.state == connReady && m.left == leftTools:
		return fit(st.Hint.Render(clip(demoHint(w), w)), w)
	}
	return fit("", w)
}

// helpView is the help footer for what has focus.
func (m *Model) helpView(full bool) string {
	var km help.KeyMap = m.c.Keys
	switch {
	case m.prompt.active:
		km = promptHelp{m.c.Keys}
	case m.editing:
		km = editorHelp{m.c.Keys, m.editor.jsonMode}
	case m.asks.panel != nil:
		km = m.asks.panel.help()
	case m.timelineOn:
		km = timelineHelp{m.c.Keys}
	}
	m.help.ShowAll = full
	if full {
		keys := m.help.View(km)
		// The help cuts columns that do not fit; flow them instead.
		whole := m.help
		whole.SetWidth(0)
		if lipgloss.Width(whole.View(km)) > m.layout.help.w {
			keys = m.flowedHelp(km)
		}
		// The notes only where they leave room for the panes.
		if notes := m.helpNotes(); km == help.KeyMap(m.c.Keys) &&
			m.c.Height-m.header.Height()-1-lipgloss.Height(keys)-lipgloss.Height(notes) >= minBodyWithNotes {
			keys += "\n" + notes
		}
		return keys
	}
	return m.shortHelpView(km)
}

// minBodyWithNotes is the least room the panes keep when the full help
// adds its notes.
const minBodyWithNotes = 8

// helpNotes says in words what the keys and figures mean where a key's
// one-word description cannot.
func (m *Model) helpNotes() string {
	settle := "the settle window (" + formatDuration(settleWindow(m.opts.Settle)) + ", --settle)"
	if m.opts.Settle < 0 {
		settle = "no settle window (--settle 0)"
	}
	notes := []string{
		"ELAPSED stops when a cancel is sent: that is what the server was given. A cancelled request then stays " +
			"cancelling for " + settle + ", watching what the server does; the detail shows it as \"settled after\".",
		"✗ tool error is a result with isError: the server answered, the tool failed. " +
			"C cancels every pending request, or, with a filter, only the pending rows it shows.",
		"L lists the tools again (so does the server's tools/list_changed). W writes the transcript (NDJSON); " +
			"the wire log keeps the last " + english.Thousands(wireLogSize) + " frames.",
		"2 and 3 list resources and prompts when first shown. enter reads a resource or fills a template's or " +
			"prompt's form, where ctrl+n puts a completion in the field; enter on a read's detail saves it, and on a tool result's detail its image, audio or blob.",
		"The header's \"tools ⇄ roots,sampling,…\" is what the server declared ⇄ what mcpoke declared. A request the server " +
			"sends (← in the table) opens its panel; esc leaves it waiting, enter on its row opens it again. a offers the server another root.",
	}
	var out []string
	for _, n := range notes {
		out = append(out, wrapLines(m.c.Styles.Help.FullDesc.Render(n), m.layout.help.w)...)
	}
	return strings.Join(out, "\n")
}

// settleWindow is the window a session uses for Config.SettleWindow d.
func settleWindow(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return time.Second
	case d < 0:
		return 0
	}
	return d
}

// flowedHelp lays every binding out in lines, for screens too narrow for
// the help's columns.
func (m *Model) flowedHelp(km help.KeyMap) string {
	st := m.c.Styles.Help
	w := m.layout.help.w
	var lines []string
	line := ""
	for _, group := range km.FullHelp() {
		for _, b := range group {
			if !b.Enabled() {
				continue
			}
			item := st.FullKey.Render(b.Help().Key) + " " + st.FullDesc.Render(b.Help().Desc)
			switch {
			case line == "":
				line = item
			case lipWidth(line)+3+lipWidth(item) <= w:
				line += st.FullSeparator.Render(" • ") + item
			default:
				lines = append(lines, line)
				line = item
			}
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

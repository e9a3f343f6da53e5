package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// Reasons sent with cancellations.
const (
	reasonUser    = "cancelled by user"
	reasonClosing = "client closing"
)

// handleKey routes a key: force quit first, then whatever is being typed
// into, then global keys, then the focused pane.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	g := m.c.Keys.Global
	if key.Matches(k, g.ForceQuit) {
		if m.forceArmed {
			return tea.Quit
		}
		m.forceArmed = true
		cmd := m.quit()
		m.setStatus("closing… press "+k.String()+" again to force quit", false)
		return cmd
	}
	if m.quitting {
		return nil
	}
	if m.prompt.active {
		return m.promptKey(k)
	}
	if m.editing {
		return m.editorKey(k)
	}
	if m.asks.panel != nil {
		return m.panelKey(k)
	}
	if m.opts.Attached != nil {
		if cmd, ok := m.attachKey(k); ok {
			return cmd
		}
	}

	if cmd, ok := m.featureKey(k); ok {
		return cmd
	}
	rq := m.c.Keys.Requests
	nav := m.c.Keys.Nav
	switch {
	case key.Matches(k, g.Quit):
		return m.quit()
	case key.Matches(k, g.Help):
		m.fullHelp = !m.fullHelp
		m.relayout()
	case key.Matches(k, g.Focus):
		m.moveFocus(1)
	case key.Matches(k, g.FocusBack):
		m.moveFocus(focusAreas - 1)
	case key.Matches(k, g.Wire):
		m.toggleBottom(bottomWire)
	case key.Matches(k, g.Stderr):
		m.toggleBottom(bottomStderr)
	case key.Matches(k, g.Filter):
		return m.openFilter()
	case key.Matches(k, g.Timeout):
		return m.openTimeout()
	case key.Matches(k, g.Reconnect):
		return m.reconnect()
	case key.Matches(k, g.WriteTranscript):
		return m.openTranscriptPrompt()
	case key.Matches(k, g.ListTools):
		return m.relistTools(false)
	case key.Matches(k, m.c.Keys.Ask.AddRoot):
		return m.addRoot()
	case key.Matches(k, g.Tasks):
		m.toggleTasks()
	case key.Matches(k, rq.Cancel):
		return m.cancelSelected(reasonUser)
	case key.Matches(k, rq.CancelAll):
		return m.cancelAll()
	case key.Matches(k, rq.CancelWithReason):
		r := m.table.Selected()
		if r == nil {
			m.setStatus("no request selected", true)
			return nil
		}
		// The session already said no: do not ask for a reason.
		if c := m.cancellable; c.known && c.seq == r.Seq && m.refused(r.Label(), c.err) {
			return nil
		}
		m.prompt.seq = r.Seq
		return m.prompt.Open(promptReason, "reason for cancelling "+termtext.Line(r.Label())+":", "")
	case key.Matches(k, rq.Rerun):
		return m.rerun()
	case key.Matches(k, rq.Timeline):
		m.toggleTimeline()
	case key.Matches(k, nav.Back):
		m.back()
	case key.Matches(k, nav.Open):
		return m.open()
	default:
		return m.navigate(k)
	}
	return nil
}

// moveFocus moves focus by n areas, round; the timeline is one area
// where the requests and the pane below them were.
func (m *Model) moveFocus(n focusArea) {
	f := (m.focus + n) % focusAreas
	if m.timelineOn && f == focusBottom {
		f = (f + n) % focusAreas
	}
	if m.timelineOn && m.layout.timelineWide {
		f = focusRequests // the tools are hidden
	}
	m.setFocus(f)
}

// toggleTimeline shows the selected request's timeline in place of the
// requests, or the requests again. It follows the selection: a new call
// selects its row, and the timeline draws it.
func (m *Model) toggleTimeline() {
	m.timelineOn = !m.timelineOn
	if !m.timelineOn {
		m.setFocus(m.focusBeforeTimeline) // where the person was
		return
	}
	m.focusBeforeTimeline = m.focus
	m.timeline.Reset()
	m.timeline.SetRow(m.table.Selected())
	m.setFocus(focusRequests) // tab goes back to the tools

}

// navigate hands a navigation key to the focused pane.
func (m *Model) navigate(k tea.KeyPressMsg) tea.Cmd { return m.paneOf(m.focus).Update(k) }

// toggleBottom shows p under the requests, or the detail again.
func (m *Model) toggleBottom(p bottomKind) {
	if m.timelineOn {
		// The pane asked for shows at once, in the requests' place again.
		m.timelineOn, m.bottom = false, p
		return
	}
	if m.bottom == p {
		m.bottom = bottomDetail
		return
	}
	m.bottom = p
}

// back closes what is open: full help, an expanded frame, a filter.
func (m *Model) back() {
	switch {
	case m.fullHelp:
		m.fullHelp = false
		m.relayout()
	case m.timelineOn:
		m.toggleTimeline()
	case m.focus == focusBottom && m.bottom == bottomWire && m.wire.expanded:
		m.wire.expanded = false
	case m.focus == focusTools && m.leftFilter() != "":
		m.setLeftFilter("")
	case m.focus == focusRequests && m.table.Filter() != "":
		m.table.SetFilter("")
	case m.focus == focusRequests && m.table.TasksOnly():
		m.toggleTasks()
	}
}

// open is enter: call the selected tool, show a wire frame, or look at
// the selected request's detail.
func (m *Model) open() tea.Cmd {
	switch m.focus {
	case focusTools:
		switch m.left {
		case leftResources:
			return m.openEntry(m.resources)
		case leftPrompts:
			return m.openEntry(m.prompts)
		}
		t := m.tools.Selected()
		if t == nil {
			return nil
		}
		if m.conn == nil || m.header.state != connReady {
			m.setStatus("not connected; press "+m.c.Keys.Global.Reconnect.Help().Key+" to reconnect", true)
			return nil
		}
		m.setEditing(true)
		cmd := m.editor.Open(*t)
		m.editor.SetTaskChoice(m.taskChoice(*t))
		return cmd
	case focusRequests:
		// From the timeline too: back to the requests, detail below.
		m.timelineOn = false
		if cmd, ok := m.reopen(m.table.Selected()); ok {
			return cmd
		}
		m.setFocus(focusBottom)
		m.bottom = bottomDetail
	case focusBottom:
		if m.bottom == bottomWire {
			m.wire.Toggle()
		}
		if m.bottom == bottomDetail {
			return m.openSaveContents()
		}
	}
	return nil
}

// editorKey handles a key while the argument editor is open.
func (m *Model) editorKey(k tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := m.suggestionKey(k); ok {
		return cmd
	}
	before := m.editor.focusedValue()
	action, args, cmd := m.editor.Update(k)
	switch action {
	case editorClose:
		m.setEditing(false)
	case editorSend:
		m.setEditing(false)
		m.editor.Remember(m.editor.memoryKey(), args)
		if m.editor.target.kind != targetTool {
			return tea.Batch(cmd, m.sendTarget(m.editor.target, args))
		}
		return tea.Batch(cmd, m.callToolAs(m.editor.tool.Name, args, m.editor.asTask))
	}
	return tea.Batch(cmd, m.editorChanged(before))
}

// promptKey handles a key while the prompt is open.
func (m *Model) promptKey(k tea.KeyPressMsg) tea.Cmd {
	res, cmd := m.prompt.Update(k)
	value := m.prompt.Value()
	switch m.prompt.kind {
	case promptFilterTools, promptFilterRequests:
		if res == promptAbandoned {
			value = m.prompt.previous
		}
		if m.prompt.kind == promptFilterTools {
			m.setLeftFilter(value)
		} else {
			m.table.SetFilter(value)
		}
	case promptReason:
		if res == promptAccepted {
			r := m.store.Get(m.prompt.seq)
			if r == nil {
				m.setStatus("that request is gone", true)
				return cmd
			}
			if strings.TrimSpace(value) == "" {
				value = reasonUser
			}
			if m.opts.Attached != nil {
				return tea.Batch(cmd, m.attachKill(r, value))
			}
			return tea.Batch(cmd, m.cancelRow(r, value))
		}
	case promptRequestTimeout:
		if res == promptAccepted {
			if _, err := parseTimeout(value); err != nil {
				return tea.Batch(cmd, m.prompt.Refuse(err.Error()))
			}
			return tea.Batch(cmd, m.setRequestTimeout(m.prompt.seq, value))
		}
	case promptRoot:
		if res == promptAccepted && m.asks.client != nil && m.conn != nil {
			dir := strings.TrimSpace(value)
			if dir == "" {
				return tea.Batch(cmd, m.prompt.Refuse("give a directory"))
			}
			return tea.Batch(cmd, addRootCmd(m.gen, m.asks.client, m.conn, dir))
		}
	case promptTranscript:
		if res == promptAccepted {
			path := strings.TrimSpace(value)
			if path == "" {
				return tea.Batch(cmd, m.prompt.Refuse("give a file name"))
			}
			return tea.Batch(cmd, m.writeTranscript(path))
		}
	case promptLogLevel:
		if res == promptAccepted {
			level := strings.TrimSpace(value)
			if _, err := mcp.SetLevelParams(level); err != nil {
				return tea.Batch(cmd, m.prompt.Refuse(err.Error()))
			}
			return tea.Batch(cmd, m.setLogLevel(level))
		}
	case promptSaveContents:
		if res == promptAccepted {
			path := strings.TrimSpace(value)
			if path == "" {
				return tea.Batch(cmd, m.prompt.Refuse("give a file name"))
			}
			return tea.Batch(cmd, m.saveContents(m.prompt.seq, path))
		}
	case promptTimeout:
		if res == promptAccepted {
			d, err := parseTimeout(value)
			if err != nil {
				return tea.Batch(cmd, m.prompt.Refuse(err.Error()))
			}
			m.timeout, m.header.timeout = d, d
			if d == 0 {
				m.setStatus("new calls have no timeout", false)
			} else {
				m.setStatus("new calls time out after "+formatDuration(d), false)
			}
		}
	}
	return cmd
}

// openFilter starts filtering the tools or the requests, whichever has
// focus (the requests, when the pane below them has it).
func (m *Model) openFilter() tea.Cmd {
	if m.focus == focusTools {
		m.prompt.previous = m.leftFilter()
		return m.prompt.Open(promptFilterTools, "filter "+[...]string{"tools", "resources", "prompts"}[m.left]+":", m.leftFilter())
	}
	m.prompt.previous = m.table.Filter()
	return m.prompt.Open(promptFilterRequests, "filter requests:", m.table.Filter())
}

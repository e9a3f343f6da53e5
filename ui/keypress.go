package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

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

	rq := m.c.Keys.Requests
	nav := m.c.Keys.Nav
	switch {
	case key.Matches(k, g.Quit):
		return m.quit()
	case key.Matches(k, g.Help):
		m.fullHelp = !m.fullHelp
		m.relayout()
	case key.Matches(k, g.Focus):
		m.setFocus((m.focus + 1) % focusAreas)
	case key.Matches(k, g.FocusBack):
		m.setFocus((m.focus + focusAreas - 1) % focusAreas)
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
		if c := m.cancellable; c.known && c.seq == r.seq && c.err != nil {
			// The session already said no: do not ask for a reason.
			m.setStatus(termtext.Line(r.label())+": "+refusal(c.err), true)
			return nil
		}
		m.prompt.seq = r.seq
		return m.prompt.Open(promptReason, "reason for cancelling "+termtext.Line(r.label())+":", "")
	case key.Matches(k, rq.Rerun):
		return m.rerun()
	case key.Matches(k, nav.Back):
		m.back()
	case key.Matches(k, nav.Open):
		return m.open()
	default:
		return m.navigate(k)
	}
	return nil
}

// navigate hands a navigation key to the focused pane.
func (m *Model) navigate(k tea.KeyPressMsg) tea.Cmd { return m.paneOf(m.focus).Update(k) }

// toggleBottom shows p under the requests, or the detail again.
func (m *Model) toggleBottom(p bottomKind) {
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
	case m.focus == focusBottom && m.bottom == bottomWire && m.wire.expanded:
		m.wire.expanded = false
	case m.focus == focusTools && m.tools.filter != "":
		m.tools.SetFilter("")
	case m.focus == focusRequests && m.table.filter != "":
		m.table.SetFilter("")
	case m.focus == focusRequests && m.table.tasksOnly:
		m.toggleTasks()
	}
}

// open is enter: call the selected tool, show a wire frame, or look at
// the selected request's detail.
func (m *Model) open() tea.Cmd {
	switch m.focus {
	case focusTools:
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
		m.setFocus(focusBottom)
		m.bottom = bottomDetail
	case focusBottom:
		if m.bottom == bottomWire {
			m.wire.Toggle()
		}
	}
	return nil
}

// editorKey handles a key while the argument editor is open.
func (m *Model) editorKey(k tea.KeyPressMsg) tea.Cmd {
	action, args, cmd := m.editor.Update(k)
	switch action {
	case editorClose:
		m.setEditing(false)
	case editorSend:
		m.setEditing(false)
		m.editor.Remember(m.editor.tool.Name, args)
		return tea.Batch(cmd, m.callToolAs(m.editor.tool.Name, args, m.editor.asTask))
	}
	return cmd
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
			m.tools.SetFilter(value)
		} else {
			m.table.SetFilter(value)
		}
	case promptReason:
		if res == promptAccepted {
			r := m.store.get(m.prompt.seq)
			if r == nil {
				m.setStatus("that request is gone", true)
				return cmd
			}
			if strings.TrimSpace(value) == "" {
				value = reasonUser
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
	case promptTranscript:
		if res == promptAccepted {
			path := strings.TrimSpace(value)
			if path == "" {
				return tea.Batch(cmd, m.prompt.Refuse("give a file name"))
			}
			return tea.Batch(cmd, m.writeTranscript(path))
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
		m.prompt.previous = m.tools.filter
		return m.prompt.Open(promptFilterTools, "filter tools:", m.tools.filter)
	}
	m.prompt.previous = m.table.filter
	return m.prompt.Open(promptFilterRequests, "filter requests:", m.table.filter)
}

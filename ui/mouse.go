package ui

import (
	tea "charm.land/bubbletea/v2"
)

// wheelStep is how many lines one wheel notch scrolls.
const wheelStep = 3

// handleClick selects what was clicked and focuses its pane.
func (m *Model) handleClick(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft || m.quitting || m.prompt.active {
		return nil
	}
	l := m.layout
	x, y := msg.X, msg.Y
	switch {
	case l.tools.contains(x, y):
		m.setFocus(focusTools)
		m.tools.ClickAt(y - l.tools.y)
	case m.editing:
		return nil
	case l.table.contains(x, y):
		m.setFocus(focusRequests)
		m.table.ClickAt(y - l.table.y)
	case l.bottom.contains(x, y):
		m.setFocus(focusBottom)
		if m.bottom == paneWire {
			m.wire.ClickAt(y - l.bottom.y)
		}
	}
	return nil
}

// handleWheel scrolls the pane under the pointer.
func (m *Model) handleWheel(msg tea.MouseWheelMsg) {
	n := 0
	switch msg.Button {
	case tea.MouseWheelUp:
		n = -wheelStep
	case tea.MouseWheelDown:
		n = wheelStep
	default:
		return
	}
	l := m.layout
	x, y := msg.X, msg.Y
	switch {
	case l.tools.contains(x, y):
		m.tools.Scroll(n)
	case m.editing:
	case l.table.contains(x, y):
		m.table.Scroll(n)
	case l.bottom.contains(x, y):
		switch m.bottom {
		case paneWire:
			m.wire.Scroll(n)
		case paneStderr:
			m.stderr.Scroll(n)
		default:
			m.detail.Scroll(n)
		}
	}
}

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
	area, ok := m.areaAt(msg.X, msg.Y)
	if !ok {
		return nil
	}
	m.setFocus(area)
	l, y := m.layout, msg.Y
	switch {
	case area == focusTools:
		m.leftClick(y - l.tools.y)
	case area == focusRequests && m.timelineOn: // the timeline has no rows to pick
	case area == focusRequests:
		m.table.ClickAt(y - l.table.y)
	case m.bottom == bottomWire:
		m.wire.ClickAt(y - l.bottom.y)
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
	if area, ok := m.areaAt(msg.X, msg.Y); ok {
		m.paneOf(area).Scroll(n)
	}
}

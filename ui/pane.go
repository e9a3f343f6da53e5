package ui

import tea "charm.land/bubbletea/v2"

// pane is what the root model asks of every part of the screen: a size to
// draw in, and the drawing. View renders exactly that size, so the root
// joins panes line by line without measuring them.
type pane interface {
	SetSize(w, h int)
	View() string
}

// bodyPane is a pane of the body that takes focus: while focused it gets
// the navigation keys, and the wheel scrolls it under the pointer.
type bodyPane interface {
	pane
	SetFocused(bool)
	Update(tea.Msg) tea.Cmd
	Scroll(n int)
}

var (
	_ pane     = (*header)(nil)
	_ pane     = (*argEditor)(nil)
	_ pane     = (*prompt)(nil)
	_ bodyPane = (*toolList)(nil)
	_ bodyPane = (*requestTable)(nil)
	_ bodyPane = (*detail)(nil)
	_ bodyPane = (*wireLog)(nil)
	_ bodyPane = (*stderrPane)(nil)
	_ bodyPane = (*timeline)(nil)
	_ bodyPane = (*entryList)(nil)
	_ bodyPane = (*logPane)(nil)
)

// focusable is the focus of a bodyPane, embedded by each.
type focusable struct{ focused bool }

// SetFocused implements bodyPane.
func (f *focusable) SetFocused(on bool) { f.focused = on }

// placed is a pane and where the layout puts it.
type placed struct {
	pane
	at rect
}

// placed lists every pane with its place, for resizing.
func (m *Model) placed() []placed {
	l := m.layout
	return []placed{
		{m.header, l.header}, {m.tools, l.tools}, {m.table, l.table},
		{m.detail, l.bottom}, {m.wire, l.bottom}, {m.stderr, l.bottom},
		{m.editor, l.editor}, {m.prompt, l.status}, {m.timeline, l.timeline},
		{m.resources, l.tools}, {m.prompts, l.tools}, {m.logs, l.bottom},
	}
}

// areaPanes are the body panes of each focus area; the bottom area's
// are the panes that take turns under the requests.
func (m *Model) areaPanes() [focusAreas][]bodyPane {
	return [focusAreas][]bodyPane{
		focusTools:    {m.tools, m.resources, m.prompts},
		focusRequests: {m.table, m.timeline},
		focusBottom:   {m.detail, m.wire, m.stderr, m.logs},
	}
}

// below is the pane shown under the requests.
func (m *Model) below() bodyPane {
	switch m.bottom {
	case bottomWire:
		return m.wire
	case bottomStderr:
		return m.stderr
	case bottomLog:
		return m.logs
	}
	return m.detail
}

// paneOf is the pane of a focus area that is on screen; the timeline
// stands for the requests and the pane below them.
func (m *Model) paneOf(a focusArea) bodyPane {
	switch {
	case a == focusTools:
		return m.leftPane()
	case m.timelineOn:
		return m.timeline
	}
	switch a {
	case focusRequests:
		return m.table
	}
	return m.below()
}

// areaAt is the focus area under the pointer; the editor hides the
// requests and the pane below them.
func (m *Model) areaAt(x, y int) (focusArea, bool) {
	l := m.layout
	switch {
	case m.timelineOn && !m.editing && l.timeline.contains(x, y):
		return focusRequests, true
	case l.tools.contains(x, y):
		return focusTools, true
	case m.editing, m.asks.panel != nil:
	case l.table.contains(x, y):
		return focusRequests, true
	case l.bottom.contains(x, y):
		return focusBottom, true
	}
	return 0, false
}

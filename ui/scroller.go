package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// scroller is the scrolling shared by the text panes: an offset into
// wrapped lines, kept in range.
type scroller struct {
	offset int
	total  int // lines of content
	height int // lines on screen
}

func (s *scroller) clamp() { s.offset = max(min(s.offset, s.total-s.height), 0) }

// Scroll moves the view n lines.
func (s *scroller) Scroll(n int) {
	s.offset += n
	s.clamp()
}

func (s *scroller) atBottom() bool { return s.offset >= s.total-s.height }

// navScroll maps a navigation key to how far to scroll a pane or move a
// selection; callers clamp, so top and bottom are simply very far.
func navScroll(nav navKeys, msg tea.KeyPressMsg, page int) (int, bool) {
	switch {
	case key.Matches(msg, nav.Up):
		return -1, true
	case key.Matches(msg, nav.Down):
		return 1, true
	case key.Matches(msg, nav.PageUp):
		return -page, true
	case key.Matches(msg, nav.PageDown):
		return page, true
	case key.Matches(msg, nav.Top):
		return -1 << 30, true
	case key.Matches(msg, nav.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

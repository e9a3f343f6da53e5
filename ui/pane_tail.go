package ui

import tea "charm.land/bubbletea/v2"

// tailPane is what the server log and stderr panes share: the newest
// items of a stream, up to a size, shown under a title and following the
// end unless scrolled back. An item may wrap over several lines; the
// scroll offset counts items.
type tailPane[T any] struct {
	c       *common
	items   []T
	dropped int
	// size is how many items are kept, newest; past it by a quarter the
	// oldest go, so the cost of dropping is amortized.
	size   int
	scroll scroller

	width, height int
	focusable
}

// reset forgets every item; the size and place stay.
func (p *tailPane[T]) reset() {
	clear(p.items)
	p.items, p.dropped = nil, 0
	p.scroll.offset, p.scroll.total = 0, 0
}

// SetSize sets the pane's size, title included.
func (p *tailPane[T]) SetSize(w, h int) {
	p.width, p.height = w, h
	p.scroll.height = max(h-1, 1)
	p.scroll.clamp()
}

// add appends items, counting dropped as lost on the way; the view stays
// at the end if it was. It reports how many of the oldest it let go.
func (p *tailPane[T]) add(items []T, dropped int) (over int) {
	follow := p.scroll.atBottom()
	p.dropped += dropped
	p.items = append(p.items, items...)
	if over = len(p.items) - p.size; over > p.size/4 {
		n := copy(p.items, p.items[over:])
		clear(p.items[n:])
		p.items = p.items[:n]
		p.dropped += over
	} else {
		over = 0
	}
	p.scroll.total = len(p.items)
	if follow {
		p.scroll.offset = p.scroll.total
	}
	p.scroll.clamp()
	return over
}

// Update implements bodyPane: scrolling keys.
func (p *tailPane[T]) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if n, ok := navScroll(p.c.Keys.Nav, k, p.scroll.height); ok {
			p.scroll.Scroll(n)
		}
	}
	return nil
}

// Scroll moves the view n items.
func (p *tailPane[T]) Scroll(n int) { p.scroll.Scroll(n) }

// view fills the pane under out, its title and notes, with the items
// drawn by lines: at the end, the newest fill it from the bottom, so the
// last is always seen; scrolled back, the items from the offset down.
func (p *tailPane[T]) view(out []string, lines func(T) []string) string {
	if p.scroll.atBottom() {
		room := p.height - len(out)
		var tail []string
		for i := len(p.items) - 1; i >= 0 && len(tail) < room; i-- {
			tail = append(lines(p.items[i]), tail...)
		}
		out = append(out, tail[max(len(tail)-room, 0):]...)
		return padLines(out, p.width, p.height)
	}
	for i := p.scroll.offset; i < len(p.items) && len(out) < p.height; i++ {
		out = append(out, lines(p.items[i])...)
	}
	return padLines(out, p.width, p.height)
}

// Package list is the one list behind the screen's lists (tools,
// resources and prompts, the wire log, the request table): items seen
// through a filter, a cursor on what is shown, and a window of rows that
// keeps the cursor in view. It draws nothing and knows no keys, so it
// can be tested by itself; the panes draw the window it gives them.
package list

import "slices"

// Options say how a list treats its items. Every field may be left zero.
type Options[T any, Q comparable] struct {
	// Match reports whether item passes query; the zero query shows every
	// item without calling it. Nil: every item passes.
	Match func(item T, query Q) bool
	// Same reports whether a and b are one item, so that SetItems keeps
	// the selection on it. Nil: the selection keeps its place instead.
	Same func(a, b T) bool
	// Order says that the items are kept sorted by it: the selection is
	// then found by a binary search, and when it is gone the cursor takes
	// the first item after it rather than keeping its place.
	Order func(a, b T) int
	// Tail makes the list follow its end as a log does: while the cursor
	// is on the last item, it moves to each new last item.
	Tail bool
}

// Filtered is a list of items seen through a filter, with a cursor on
// the shown items and a window of Height rows, one item a row, that
// always holds the cursor. Indices given to and returned by its methods
// count shown items unless they say otherwise.
//
// The list reads the slice given to SetItems until the next SetItems:
// whoever changes that slice calls SetItems again before using the list.
type Filtered[T any, Q comparable] struct {
	opts  Options[T, Q]
	items []T
	query Q
	// shown are the indices of the items that pass the query, ascending;
	// nil when the query is the zero one and every item shows.
	shown []int

	cursor int // into the shown items; 0 when none is shown
	offset int // the first shown item in the window
	height int // rows in the window, at least 1
	// selected is the item under the cursor as of the last change, so
	// that SetItems can find it again even if the old slice was changed
	// in place; selectedAt is its index in items. has says it is shown;
	// kept that there was one, which a query that hides every item does
	// not forget, so that clearing the query finds it again.
	selected   T
	selectedAt int
	has, kept  bool
	// following: the cursor sits on the last item and stays there as
	// items come (Options.Tail).
	following bool
}

// New makes an empty list with a window of one row.
func New[T any, Q comparable](opts Options[T, Q]) *Filtered[T, Q] {
	return &Filtered[T, Q]{opts: opts, height: 1, following: opts.Tail}
}

// Reset forgets the items, the query and the cursor; the options and the
// window's height stay.
func (l *Filtered[T, Q]) Reset() {
	*l = Filtered[T, Q]{opts: l.opts, height: l.height, following: l.opts.Tail}
}

// Items are all the items, shown or not. The slice is the list's: do not
// modify it.
func (l *Filtered[T, Q]) Items() []T { return l.items }

// Len is how many items there are, shown or not.
func (l *Filtered[T, Q]) Len() int { return len(l.items) }

// Shown is how many items pass the query.
func (l *Filtered[T, Q]) Shown() int {
	if l.shown == nil {
		return len(l.items)
	}
	return len(l.shown)
}

// At is the i-th shown item.
func (l *Filtered[T, Q]) At(i int) T { return l.items[l.index(i)] }

// ShownItems are the shown items, in order: the list's own slice when no
// query hides any (do not modify it), else a new one.
func (l *Filtered[T, Q]) ShownItems() []T {
	if l.shown == nil {
		return l.items
	}
	out := make([]T, len(l.shown))
	for i, idx := range l.shown {
		out[i] = l.items[idx]
	}
	return out
}

// last is the position of the last shown item; 0 when none is shown.
func (l *Filtered[T, Q]) last() int { return max(l.Shown()-1, 0) }

// index is the index in items of the i-th shown item.
func (l *Filtered[T, Q]) index(i int) int {
	if l.shown == nil {
		return i
	}
	return l.shown[i]
}

// Query is the query the items are filtered by.
func (l *Filtered[T, Q]) Query() Q { return l.query }

// Filtering reports whether a query is set, which may hide items.
func (l *Filtered[T, Q]) Filtering() bool {
	var zero Q
	return l.query != zero
}

// Selected is the item under the cursor, and false when none is shown.
func (l *Filtered[T, Q]) Selected() (T, bool) {
	if !l.has {
		var zero T
		return zero, false
	}
	return l.selected, true
}

// Cursor is the index of the selected item among the shown ones; 0 when
// none is shown.
func (l *Filtered[T, Q]) Cursor() int { return l.cursor }

// Offset is the index of the first shown item in the window.
func (l *Filtered[T, Q]) Offset() int { return l.offset }

// Height is how many rows the window has.
func (l *Filtered[T, Q]) Height() int { return l.height }

// Window is the range of shown items in the window: [from, to).
func (l *Filtered[T, Q]) Window() (from, to int) {
	return l.offset, min(l.offset+l.height, l.Shown())
}

// Following reports whether the cursor follows the end (Options.Tail).
func (l *Filtered[T, Q]) Following() bool { return l.following }

// AtBottom reports whether the window shows the last item, so that a view
// may keep new items in sight (ShowEnd).
func (l *Filtered[T, Q]) AtBottom() bool { return l.offset+l.height >= l.Shown() }

// SetHeight sets how many rows the window has (at least one), keeping
// the cursor in it.
func (l *Filtered[T, Q]) SetHeight(h int) {
	l.height = max(h, 1)
	l.settle()
}

// SetItems replaces the items. The selection stays on the same item when
// it is still shown (Options.Same, Options.Order); otherwise the cursor
// keeps its place, or with Options.Order takes the first item after the
// one that went. A following list moves to the new last item.
func (l *Filtered[T, Q]) SetItems(items []T) {
	prev, had := l.selected, l.kept
	l.items = items
	l.refilter()
	switch {
	case l.following:
		l.cursor = l.last()
	case had && (l.opts.Order != nil || l.opts.Same != nil):
		l.cursor, _ = l.locate(prev)
	}
	l.kept = false // its index was the old items'; settle keeps a shown one
	l.settle()
}

// Append adds items at the end; a following list moves to the last.
func (l *Filtered[T, Q]) Append(items ...T) {
	if len(items) == 0 {
		return
	}
	from := len(l.items)
	l.items = append(l.items, items...)
	if l.shown != nil {
		for i := from; i < len(l.items); i++ {
			if l.passes(l.items[i]) {
				l.shown = append(l.shown, i)
			}
		}
	}
	if l.following {
		l.cursor = l.last()
	}
	l.settle()
}

// DropFront drops the first n items, as a log that keeps the newest does.
// The cursor and the window stay on the items they showed, as long as
// those are kept.
func (l *Filtered[T, Q]) DropFront(n int) {
	n = min(max(n, 0), len(l.items))
	if n == 0 {
		return
	}
	gone := n // shown items among the dropped
	if l.shown != nil {
		gone, _ = slices.BinarySearch(l.shown, n)
		kept := l.shown[:0]
		for _, idx := range l.shown[gone:] {
			kept = append(kept, idx-n)
		}
		l.shown = kept
	}
	// A copy, and the dropped cleared: the old array must not pin them.
	k := copy(l.items, l.items[n:])
	clear(l.items[k:])
	l.items = l.items[:k]
	if l.following {
		l.cursor = l.last()
	} else {
		l.cursor = max(l.cursor-gone, 0)
	}
	l.offset = max(l.offset-gone, 0)
	if l.selectedAt -= n; l.selectedAt < 0 {
		l.kept = false // dropped, though hidden
	}
	l.settle()
}

// SetQuery filters the items by q. The selection stays on its item when
// that still passes; otherwise the cursor takes the first shown item
// after it, or the last.
func (l *Filtered[T, Q]) SetQuery(q Q) {
	l.query = q
	l.Refilter()
}

// Refilter applies the query again, for items that changed in place.
func (l *Filtered[T, Q]) Refilter() {
	at := -1 // the selected item's index in items
	if l.kept && l.selectedAt < len(l.items) {
		at = l.selectedAt
	}
	l.refilter()
	if at >= 0 && !l.following {
		l.cursor = l.nearestIndex(at)
	}
	if l.following {
		l.cursor = l.last()
	}
	l.settle()
}

// MoveBy moves the cursor n shown items, stopping at the ends.
func (l *Filtered[T, Q]) MoveBy(n int) {
	l.cursor = min(max(l.cursor+n, 0), l.last())
	l.following = l.opts.Tail && l.cursor >= l.last()
	l.settle()
}

// Scroll moves the window n rows, stopping at the ends, and drags the
// cursor along when it would leave the window. A list that follows its
// tail (Options.Tail) follows it again once scrolled down to the end.
func (l *Filtered[T, Q]) Scroll(n int) {
	l.offset = min(max(l.offset+n, 0), max(l.Shown()-l.height, 0))
	l.cursor = min(max(l.cursor, l.offset), l.offset+l.height-1)
	if l.opts.Tail && n > 0 && l.AtBottom() {
		l.cursor = l.last()
	}
	l.MoveBy(0)
}

// ShowEnd moves the window as far toward the end as it goes with the
// cursor still in it: new items come into sight, the selection stays.
func (l *Filtered[T, Q]) ShowEnd() {
	l.offset = max(min(l.Shown()-l.height, l.cursor), 0)
	l.settle()
}

// Select moves the cursor to the i-th shown item.
func (l *Filtered[T, Q]) Select(i int) {
	l.cursor = i
	l.MoveBy(0)
}

// SelectRow selects the item on row r of the window; it reports whether
// there is one.
func (l *Filtered[T, Q]) SelectRow(r int) bool {
	i := l.offset + r
	if r < 0 || r >= l.height || i >= l.Shown() {
		return false
	}
	l.Select(i)
	return true
}

// SelectItem selects item (Options.Same or Options.Order) and reports
// whether it is shown. When it is not, a list with Options.Order takes
// the first shown item after it, and any other keeps its cursor.
func (l *Filtered[T, Q]) SelectItem(item T) bool {
	i, found := l.locate(item)
	if found || l.opts.Order != nil {
		l.Select(i)
	}
	return found
}

// SelectWhere selects the first shown item for which ok holds; it
// reports whether there is one.
func (l *Filtered[T, Q]) SelectWhere(ok func(T) bool) bool {
	for i := range l.Shown() {
		if ok(l.At(i)) {
			l.Select(i)
			return true
		}
	}
	return false
}

// passes reports whether item passes the query.
func (l *Filtered[T, Q]) passes(item T) bool {
	return !l.Filtering() || l.opts.Match == nil || l.opts.Match(item, l.query)
}

// refilter computes which items show.
func (l *Filtered[T, Q]) refilter() {
	if !l.Filtering() || l.opts.Match == nil {
		l.shown = nil
		return
	}
	shown := l.shown[:0]
	if shown == nil {
		shown = []int{} // not nil: nil means every item shows
	}
	for i, item := range l.items {
		if l.opts.Match(item, l.query) {
			shown = append(shown, i)
		}
	}
	l.shown = shown
}

// nearestIndex is the position among the shown items of the item at
// index at of items, or of the first shown after it, or the last shown.
func (l *Filtered[T, Q]) nearestIndex(at int) int {
	i := at
	if l.shown != nil {
		i, _ = slices.BinarySearch(l.shown, at)
	}
	return min(i, l.last())
}

// locate finds item among the shown ones: its position and true, or where
// the cursor should go instead and false.
func (l *Filtered[T, Q]) locate(item T) (int, bool) {
	n := l.Shown()
	if order := l.opts.Order; order != nil {
		lo, hi := 0, n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if order(l.At(m), item) < 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		// Equal order need not be the same item; look among the equals.
		for j := lo; j < n && order(l.At(j), item) == 0; j++ {
			if l.same(l.At(j), item) {
				return j, true
			}
		}
		return min(lo, l.last()), false
	}
	if l.opts.Same != nil {
		// Most often the item kept its place.
		if l.cursor < n && l.opts.Same(l.At(l.cursor), item) {
			return l.cursor, true
		}
		for i := range n {
			if l.opts.Same(l.At(i), item) {
				return i, true
			}
		}
	}
	return l.cursor, false
}

// same is Options.Same, or true for items of equal order.
func (l *Filtered[T, Q]) same(a, b T) bool {
	return l.opts.Same == nil || l.opts.Same(a, b)
}

// settle brings the cursor and the window back in bounds, the cursor in
// the window, and remembers the selected item.
func (l *Filtered[T, Q]) settle() {
	n := l.Shown()
	l.cursor = min(max(l.cursor, 0), l.last())
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+l.height {
		l.offset = l.cursor - l.height + 1
	}
	l.offset = min(max(l.offset, 0), max(n-l.height, 0))
	l.has = n > 0
	if l.has {
		l.selected, l.selectedAt, l.kept = l.At(l.cursor), l.index(l.cursor), true
	}
}

package list

import "testing"

// A selection hidden by a query is kept while the log drops its oldest
// items, and found again when the query is cleared.
func TestHiddenSelectionSurvivesDropFront(t *testing.T) {
	l := New(Options[thing, string]{Match: matchWord})
	l.Append(things("a", "b", "c", "d", "e", "f")...)
	l.MoveBy(4) // e
	l.SetQuery("zzz")
	l.DropFront(2)
	l.SetQuery("")
	if got := selectedID(l); got != 5 {
		t.Errorf("after dropping 2 while hidden: selection %d, want 5 (e) as before", got)
	}
}

// With no selection to go back to, the cursor starts at the first item
// once items show.
func TestNoSelectionStartsAtTheTop(t *testing.T) {
	l := New(Options[thing, string]{Match: matchWord})
	l.SetQuery("zzz")
	l.SetItems(things("a", "b", "c"))
	l.SetQuery("")
	if got := selectedID(l); got != 1 {
		t.Errorf("items came while hidden, query cleared: selection %d, want 1 (the first)", got)
	}
}

// SelectItem of an item that is gone moves a list with Order to the
// first item after it, and leaves any other list's cursor alone.
func TestSelectItemGone(t *testing.T) {
	items := []thing{{1, "a"}, {2, "b"}, {4, "d"}, {5, "e"}}
	ordered := New(Options[thing, string]{Same: sameID, Order: byID})
	ordered.SetItems(items)
	if ordered.SelectItem(thing{id: 3}) || selectedID(ordered) != 4 {
		t.Errorf("ordered: SelectItem(3), gone: selected %d, want 4 (the next)", selectedID(ordered))
	}
	same := New(Options[thing, string]{Same: sameID, Tail: true})
	same.SetItems(items)
	same.MoveBy(-2)
	if same.SelectItem(thing{id: 3}) || selectedID(same) != 2 || same.Following() {
		t.Errorf("by Same: SelectItem(3), gone: selected %d, following %v; want 2 as before, not following", selectedID(same), same.Following())
	}
	// A list shorter than it was: the cursor sits on the last item without
	// having moved there, and a miss must not make it follow.
	same.SetItems(items[:2])
	if same.SelectItem(thing{id: 3}) || same.Following() {
		t.Error("by Same: a missed SelectItem made the list follow its end")
	}
}

// Scrolling by nothing changes nothing, even with the window at the end
// of a tail list whose cursor is above it.
func TestScrollByNothing(t *testing.T) {
	l := New(Options[thing, string]{Tail: true})
	l.SetHeight(3)
	l.Append(things("a", "b", "c", "d", "e")...)
	l.MoveBy(-1) // d, the window c d e
	l.Scroll(0)
	if l.Cursor() != 3 || l.Following() {
		t.Errorf("Scroll(0): cursor %d, following %v; want 3, not following", l.Cursor(), l.Following())
	}
}

package list

import (
	"cmp"
	"testing"
)

// byWord orders things by word alone, so that several may share a place.
func byWord(a, b thing) int { return cmp.Compare(a.word, b.word) }

// Items of equal order need not be one item: SelectItem finds the one
// Same names among them, wherever it sits in its run of equals, and
// reports an item that is not there as not found.
func TestSelectItemAmongEqualOrder(t *testing.T) {
	items := []thing{{1, "a"}, {2, "b"}, {3, "b"}, {4, "b"}, {5, "c"}}
	l := New(Options[thing, string]{Same: sameID, Order: byWord})
	l.SetItems(items)
	for _, want := range []int{3, 4, 2, 1, 5} {
		if !l.SelectItem(items[want-1]) || selectedID(l) != want {
			t.Errorf("SelectItem(%d): selected %d", want, selectedID(l))
		}
	}
	l.Select(0)
	if l.SelectItem(thing{9, "b"}) {
		t.Error("SelectItem found an item of equal order that is not in the list")
	}
	if l.SelectItem(thing{8, "bb"}) || selectedID(l) != 5 {
		t.Errorf("SelectItem of a gone item between b and c selected %d, want 5, the first after it", selectedID(l))
	}
}

// With Order and no Same, an item of equal order is the item.
func TestSelectItemByOrderAlone(t *testing.T) {
	l := New(Options[thing, string]{Order: byID})
	l.SetItems(things("a", "b", "c", "d"))
	if !l.SelectItem(thing{id: 3}) || selectedID(l) != 3 {
		t.Errorf("SelectItem(3) by order alone: selected %d", selectedID(l))
	}
	if l.SelectItem(thing{id: 7}) || selectedID(l) != 4 {
		t.Errorf("SelectItem(7), past the end: found, or selected %d; want not found, the last (4)", selectedID(l))
	}
}

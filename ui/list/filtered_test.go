package list

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// thing is a test item: id tells items apart, word is what queries match.
type thing struct {
	id   int
	word string
}

func matchWord(t thing, q string) bool { return strings.Contains(t.word, q) }
func sameID(a, b thing) bool           { return a.id == b.id }
func byID(a, b thing) int              { return cmp.Compare(a.id, b.id) }

func things(words ...string) []thing {
	out := make([]thing, len(words))
	for i, w := range words {
		out[i] = thing{id: i + 1, word: w}
	}
	return out
}

func selectedID[Q comparable](l *Filtered[thing, Q]) int {
	if t, ok := l.Selected(); ok {
		return t.id
	}
	return 0
}

func TestEmptyListHasNoSelection(t *testing.T) {
	l := New(Options[thing, string]{Match: matchWord})
	l.MoveBy(5)
	l.Scroll(-3)
	l.SetHeight(10)
	if _, ok := l.Selected(); ok || l.Cursor() != 0 || l.Offset() != 0 {
		t.Errorf("empty list: selected %v, cursor %d, offset %d", ok, l.Cursor(), l.Offset())
	}
	if l.SelectRow(0) {
		t.Error("SelectRow found a row in an empty list")
	}
}

func TestFilterKeepsTheSelectionWhenItStillMatches(t *testing.T) {
	l := New(Options[thing, string]{Match: matchWord, Same: sameID})
	l.SetItems(things("echo", "sleep", "slow", "stubborn"))
	l.MoveBy(2) // slow
	l.SetQuery("s")
	if got := selectedID(l); got != 3 {
		t.Errorf("after /s the selection is %d, want 3 (slow, which still matches)", got)
	}
	l.SetQuery("")
	if got := selectedID(l); got != 3 {
		t.Errorf("after clearing the filter the selection is %d, want 3", got)
	}
}

// TestAQueryThatHidesEverythingForgetsNothing: /x with no match, then
// esc, comes back to the item selected before.
func TestAQueryThatHidesEverythingForgetsNothing(t *testing.T) {
	l := New(Options[thing, string]{Match: matchWord, Same: sameID})
	l.SetItems(things("echo", "sleep", "slow", "stubborn"))
	l.MoveBy(2)
	l.SetQuery("zzz")
	if _, ok := l.Selected(); ok || l.Shown() != 0 {
		t.Fatalf("nothing matches, yet %d shown and a selection", l.Shown())
	}
	l.SetQuery("")
	if got := selectedID(l); got != 3 {
		t.Errorf("after clearing the query the selection is %d, want 3 as before", got)
	}
}

func TestFilterTakesTheNextMatchWhenTheSelectionGoes(t *testing.T) {
	l := New(Options[thing, string]{Match: matchWord, Same: sameID})
	l.SetItems(things("stubborn", "echo", "sleep", "slow"))
	l.MoveBy(1) // echo
	l.SetQuery("s")
	if got := selectedID(l); got != 3 {
		t.Errorf("echo filtered out: selection %d, want 3 (sleep, the first match after it)", got)
	}
	l.SetQuery("stub")
	if got := selectedID(l); got != 1 {
		t.Errorf("nothing matches after sleep: selection %d, want 1 (the last match)", got)
	}
}

func TestSetItemsKeepsTheSelectionBySame(t *testing.T) {
	l := New(Options[thing, string]{Same: sameID})
	l.SetItems(things("a", "b", "c"))
	l.MoveBy(1)
	l.SetItems([]thing{{id: 9, word: "z"}, {id: 2, word: "b"}, {id: 1, word: "a"}})
	if got := selectedID(l); got != 2 || l.Cursor() != 1 {
		t.Errorf("selection %d at %d, want 2 at 1", got, l.Cursor())
	}
	// Gone: the cursor keeps its place.
	l.SetItems([]thing{{id: 7}, {id: 8}, {id: 9}})
	if got := selectedID(l); got != 8 {
		t.Errorf("selection gone: %d, want 8 (the cursor's place)", got)
	}
}

// TestOrderTakesTheNextItemWhenTheSelectionGoes is the request table's
// way: rows sorted by arrival, the oldest trimmed from the middle.
func TestOrderTakesTheNextItemWhenTheSelectionGoes(t *testing.T) {
	rows := things("a", "b", "c", "d", "e")
	l := New(Options[thing, string]{Same: sameID, Order: byID})
	l.SetItems(rows)
	l.MoveBy(3) // d
	l.SetItems(slices.Delete(slices.Clone(rows), 1, 4))
	if got := selectedID(l); got != 5 {
		t.Errorf("d trimmed: selection %d, want 5 (e, the next)", got)
	}
	if l.SelectItem(thing{id: 3}) {
		t.Error("SelectItem found c, which is gone")
	}
	if got := selectedID(l); got != 5 {
		t.Errorf("SelectItem(c) selected %d, want 5 (the next)", got)
	}
}

// TestSetItemsSurvivesTheOldSliceChangingInPlace: the request store trims
// its rows in place before the table sees the new slice.
func TestSetItemsSurvivesTheOldSliceChangingInPlace(t *testing.T) {
	rows := things("a", "b", "c", "d")
	l := New(Options[thing, string]{Same: sameID, Order: byID})
	l.SetItems(rows)
	l.MoveBy(2) // c
	kept := append(rows[:0], rows[2:]...)
	clear(rows[len(kept):])
	l.SetItems(kept)
	if got := selectedID(l); got != 3 || l.Cursor() != 0 {
		t.Errorf("selection %d at %d, want 3 at 0", got, l.Cursor())
	}
}

func TestWindowFollowsTheCursor(t *testing.T) {
	l := New(Options[thing, string]{})
	l.SetItems(things(strings.Split("abcdefghij", "")...))
	l.SetHeight(3)
	l.MoveBy(5)
	if from, to := l.Window(); from != 3 || to != 6 {
		t.Errorf("window [%d,%d), want [3,6)", from, to)
	}
	l.Scroll(-10)
	if l.Offset() != 0 || l.Cursor() != 2 {
		t.Errorf("scrolled to the top: offset %d cursor %d, want 0 and 2 (dragged)", l.Offset(), l.Cursor())
	}
	l.Scroll(100)
	if l.Offset() != 7 || l.Cursor() != 7 {
		t.Errorf("scrolled to the end: offset %d cursor %d, want 7 and 7", l.Offset(), l.Cursor())
	}
	if !l.SelectRow(2) || l.Cursor() != 9 {
		t.Errorf("row 2 selects %d, want 9", l.Cursor())
	}
	if l.SelectRow(3) {
		t.Error("row 3 is below the window")
	}
}

func TestShowEndKeepsTheCursorInView(t *testing.T) {
	l := New(Options[thing, string]{})
	l.SetItems(things(strings.Split("abcdefghij", "")...))
	l.SetHeight(3)
	l.MoveBy(4)
	l.ShowEnd()
	if l.Offset() != 4 || l.Cursor() != 4 {
		t.Errorf("offset %d cursor %d, want the window from the cursor: 4 and 4", l.Offset(), l.Cursor())
	}
	l.MoveBy(100)
	l.Scroll(-100)
	l.ShowEnd()
	if l.Offset() != 2 {
		t.Errorf("offset %d, want 2", l.Offset())
	}
}

func TestTailFollowsUntilTheCursorLeavesTheEnd(t *testing.T) {
	l := New(Options[thing, string]{Tail: true})
	l.SetHeight(2)
	l.Append(things("a", "b", "c")...)
	if l.Cursor() != 2 || !l.Following() {
		t.Fatalf("cursor %d following %v, want 2 and true", l.Cursor(), l.Following())
	}
	l.MoveBy(-1)
	l.Append(thing{id: 4})
	if l.Cursor() != 1 || l.Following() {
		t.Errorf("moved up: cursor %d following %v, want 1 and false", l.Cursor(), l.Following())
	}
	l.MoveBy(1 << 30)
	l.Append(thing{id: 5})
	if l.Cursor() != 4 || !l.Following() {
		t.Errorf("back at the end: cursor %d following %v, want 4 and true", l.Cursor(), l.Following())
	}
	l.MoveBy(-3)
	l.Scroll(-1)
	if l.Following() {
		t.Fatal("scrolled up, still following")
	}
	l.Scroll(2)
	if l.Following() {
		t.Fatal("scrolled down short of the end, following again")
	}
	l.Scroll(1)
	if l.Cursor() != 4 || !l.Following() {
		t.Errorf("scrolled down to the end: cursor %d following %v, want 4 and true", l.Cursor(), l.Following())
	}
	l.Reset()
	if l.Len() != 0 || !l.Following() || l.Height() != 2 {
		t.Errorf("after Reset: %d items, following %v, height %d", l.Len(), l.Following(), l.Height())
	}
}

// TestDropFrontKeepsTheWindowOnItsItems: a log at its cap drops its
// oldest as new items come; a reader scrolled back keeps reading the same
// items, the window and the cursor shifted with them.
func TestDropFrontKeepsTheWindowOnItsItems(t *testing.T) {
	l := New(Options[thing, string]{Tail: true})
	l.SetHeight(3)
	l.Append(things(strings.Split("abcdefghij", "")...)...)
	l.MoveBy(-5)
	l.MoveBy(2) // g, at the bottom of the window e f g
	wantTop := l.At(l.Offset()).id
	l.Append(thing{id: 11}, thing{id: 12})
	l.DropFront(2)
	if got := selectedID(l); got != 7 {
		t.Errorf("selection %d, want 7", got)
	}
	if got := l.At(l.Offset()).id; got != wantTop {
		t.Errorf("the window's first item is %d, want %d as before the drop", got, wantTop)
	}
	l.DropFront(100)
	if l.Len() != 0 || l.Cursor() != 0 || l.Offset() != 0 {
		t.Errorf("all dropped: %d items, cursor %d, offset %d", l.Len(), l.Cursor(), l.Offset())
	}
}

func TestDropFrontWithAQuery(t *testing.T) {
	l := New(Options[thing, string]{Match: matchWord})
	l.Append(things("x1", "y", "x2", "y", "x3")...)
	l.SetQuery("x")
	l.MoveBy(2) // x3
	l.DropFront(3)
	if got := selectedID(l); got != 5 || l.Shown() != 1 {
		t.Errorf("selection %d of %d shown, want 5 of 1", got, l.Shown())
	}
}

// TestRandomOperationsKeepTheInvariants runs random sequences of
// operations on lists of every kind and checks after each one: the
// cursor within bounds and in the window, the window within bounds, the
// selection what the cursor shows, and kept when it still shows.
func TestRandomOperationsKeepTheInvariants(t *testing.T) {
	kinds := []struct {
		name string
		opts Options[thing, string]
	}{
		{"plain", Options[thing, string]{Match: matchWord}},
		{"same", Options[thing, string]{Match: matchWord, Same: sameID}},
		{"ordered", Options[thing, string]{Match: matchWord, Same: sameID, Order: byID}},
		{"tail", Options[thing, string]{Match: matchWord, Tail: true}},
	}
	words := []string{"", "a", "b", "ab", "ba", "abc"}
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			for seed := range uint64(300) {
				rng := rand.New(rand.NewPCG(seed, 31))
				l := New(kind.opts)
				next := 1
				newThing := func() thing {
					next++
					return thing{id: next, word: words[rng.IntN(len(words))]}
				}
				var trace []string
				for step := 0; step < 60; step++ {
					prev, had := l.Selected()
					prevCursor, prevOffset, following := l.Cursor(), l.Offset(), l.Following()
					var op string
					// kept is whether prev should stay selected if still shown.
					kept := false
					switch rng.IntN(11) {
					case 0:
						// A new list: some old items, some new, sorted by id for Order.
						var items []thing
						for _, it := range l.Items() {
							if rng.IntN(3) > 0 {
								items = append(items, it)
							}
						}
						for range rng.IntN(8) {
							items = append(items, newThing())
						}
						if kind.opts.Order == nil {
							rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
						}
						op = fmt.Sprintf("SetItems(%d)", len(items))
						l.SetItems(items)
						kept = kind.opts.Same != nil && !following
						if had && !following && kind.opts.Same != nil && slices.ContainsFunc(items, func(it thing) bool { return it.id == prev.id }) &&
							(l.Query() == "" || matchWord(prev, l.Query())) && selectedID(l) != prev.id {
							t.Fatalf("seed %d: %s lost the selection %d, which is still shown\n%s", seed, op, prev.id, strings.Join(trace, "\n"))
						}
					case 1:
						q := words[rng.IntN(len(words))]
						op = fmt.Sprintf("SetQuery(%q)", q)
						l.SetQuery(q)
						kept = !following
					case 2, 3:
						n := rng.IntN(9) - 4
						op = fmt.Sprintf("MoveBy(%d)", n)
						l.MoveBy(n)
						if l.Shown() > 0 {
							if want := min(max(prevCursor+n, 0), l.Shown()-1); l.Cursor() != want {
								t.Fatalf("seed %d: MoveBy(%d) from %d: cursor %d, want %d\n%s", seed, n, prevCursor, l.Cursor(), want, strings.Join(trace, "\n"))
							}
						}
					case 4:
						n := []int{-1 << 30, 1 << 30, l.Height(), -l.Height()}[rng.IntN(4)]
						op = fmt.Sprintf("MoveBy(page %d)", n)
						l.MoveBy(n)
					case 5:
						n := rng.IntN(13) - 6
						op = fmt.Sprintf("Scroll(%d)", n)
						l.Scroll(n)
						if l.Shown() > 0 {
							if want := min(max(prevOffset+n, 0), max(l.Shown()-l.Height(), 0)); l.Offset() != want {
								t.Fatalf("seed %d: Scroll(%d) from %d: offset %d, want %d\n%s", seed, n, prevOffset, l.Offset(), want, strings.Join(trace, "\n"))
							}
						}
					case 6:
						h := rng.IntN(8)
						op = fmt.Sprintf("SetHeight(%d)", h)
						l.SetHeight(h)
						kept = true
					case 7:
						var items []thing
						for range rng.IntN(4) {
							items = append(items, newThing())
						}
						op = fmt.Sprintf("Append(%d)", len(items))
						l.Append(items...)
						kept = !following
					case 8:
						n := rng.IntN(4)
						op = fmt.Sprintf("DropFront(%d)", n)
						dropped := slices.ContainsFunc(l.Items()[:min(n, l.Len())], func(it thing) bool { return it.id == prev.id })
						l.DropFront(n)
						kept = !following && !dropped
					case 9:
						op = "ShowEnd"
						l.ShowEnd()
						kept = true
						if l.Shown() > 0 && !l.AtBottom() && l.Offset() != l.Cursor() {
							t.Fatalf("seed %d: ShowEnd left the end out of sight with room to go\n%s", seed, strings.Join(trace, "\n"))
						}
					case 10:
						r := rng.IntN(l.Height() + 1)
						op = fmt.Sprintf("SelectRow(%d)", r)
						hit := l.SelectRow(r)
						if want := r < l.Height() && prevOffset+r < l.Shown(); hit != want {
							t.Fatalf("seed %d: SelectRow(%d) = %v, want %v\n%s", seed, r, hit, want, strings.Join(trace, "\n"))
						}
						if hit && l.Cursor() != prevOffset+r {
							t.Fatalf("seed %d: SelectRow(%d) put the cursor at %d, want %d", seed, r, l.Cursor(), prevOffset+r)
						}
					}
					trace = append(trace, op)
					checkInvariants(t, l, seed, trace)
					if kept && had && (l.Query() == "" || matchWord(prev, l.Query())) && stillThere(l, prev) && selectedID(l) != prev.id {
						t.Fatalf("seed %d: %s moved the selection from %d to %d, which is still shown\n%s",
							seed, op, prev.id, selectedID(l), strings.Join(trace, "\n"))
					}
				}
			}
		})
	}
}

// stillThere reports whether item is among the list's items.
func stillThere(l *Filtered[thing, string], item thing) bool {
	return slices.ContainsFunc(l.Items(), func(it thing) bool { return it.id == item.id })
}

func checkInvariants(t *testing.T, l *Filtered[thing, string], seed uint64, trace []string) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d: "+format+"\nafter:\n%s", append(append([]any{seed}, args...), strings.Join(trace, "\n"))...)
	}
	n := 0
	for _, it := range l.Items() {
		if l.Query() == "" || matchWord(it, l.Query()) {
			n++
		}
	}
	if l.Shown() != n {
		fail("%d shown, want %d", l.Shown(), n)
	}
	sel, has := l.Selected()
	if n == 0 {
		if has || l.Cursor() != 0 || l.Offset() != 0 {
			fail("nothing shown, yet selected %v, cursor %d, offset %d", has, l.Cursor(), l.Offset())
		}
		return
	}
	switch c, o, h := l.Cursor(), l.Offset(), l.Height(); {
	case c < 0 || c >= n:
		fail("cursor %d out of [0,%d)", c, n)
	case o < 0 || o > max(n-h, 0):
		fail("offset %d out of [0,%d]", o, max(n-h, 0))
	case c < o || c >= o+h:
		fail("cursor %d outside the window [%d,%d)", c, o, o+h)
	case !has || sel != l.At(c):
		fail("selected %v %v, but the cursor shows %v", sel, has, l.At(c))
	}
	if l.Following() && l.Cursor() != n-1 {
		fail("following, yet the cursor is at %d of %d", l.Cursor(), n)
	}
	from, to := l.Window()
	if from != l.Offset() || to-from != min(l.Height(), n-from) {
		fail("window [%d,%d) with offset %d, height %d, %d shown", from, to, l.Offset(), l.Height(), n)
	}
}

package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// TestWireLogAtItsCapKeepsTheWindowOnItsRecords pins a bug of the wire
// log's own scrolling: at its cap, scrolled back, each new frame dropped
// the oldest and shifted the cursor but not the window, so what the reader
// was looking at crept up the screen one frame a frame.
func TestWireLogAtItsCapKeepsTheWindowOnItsRecords(t *testing.T) {
	start := testEpoch
	w := newWireLog(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	w.SetSize(100, 12)
	w.Reset(start)
	rec := func(i int) wire.Record {
		return wire.Record{At: start.Add(time.Duration(i) * time.Millisecond), Dir: wire.In, Kind: wire.KindFrame,
			Data: []byte(`{"jsonrpc":"2.0","method":"x"}`)}
	}
	var recs []wire.Record
	for i := range wireLogSize {
		recs = append(recs, rec(i))
	}
	w.Add(recs, 0)
	w.MoveBy(-20)
	w.MoveBy(5) // the cursor low in the window, not at its top
	before := strings.Split(w.View(), "\n")
	sel, _ := w.list.Selected()
	w.Add([]wire.Record{rec(wireLogSize), rec(wireLogSize + 1), rec(wireLogSize + 2)}, 0)
	after := strings.Split(w.View(), "\n")
	if now, _ := w.list.Selected(); !now.At.Equal(sel.At) {
		t.Errorf("the selection moved from the frame at %v to the one at %v", sel.At.Sub(start), now.At.Sub(start))
	}
	if before[1] != after[1] {
		t.Errorf("the window's first frame changed while the reader was scrolled back:\nbefore %q\nafter  %q", before[1], after[1])
	}
}

// TestFilterKeepsTheSelectedTool: typing a filter once sent the cursor
// to the first match, and esc (the filter abandoned) to the top of the
// list, whatever was selected. The selection now stays while it matches.
func TestFilterKeepsTheSelectedTool(t *testing.T) {
	l := newToolList(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	l.SetSize(30, 20)
	l.SetTools([]mcp.Tool{{Name: "echo"}, {Name: "sleep"}, {Name: "slow"}, {Name: "stubborn"}}, nil)
	l.MoveBy(2)
	l.SetFilter("s")
	if got := l.Selected(); got == nil || got.Name != "slow" {
		t.Errorf("after /s the selection is %s, want slow, which matches", toolName(got))
	}
	l.SetFilter("") // esc
	if got := l.Selected(); got == nil || got.Name != "slow" {
		t.Errorf("with the filter abandoned the selection is %s, want slow", toolName(got))
	}
	// A selection that no longer matches gives way to the next match.
	l.MoveBy(-2) // echo
	l.SetFilter("stub")
	if got := l.Selected(); got == nil || got.Name != "stubborn" {
		t.Errorf("after /stub the selection is %s, want stubborn", toolName(got))
	}
}

// TestFilterKeepsTheSelectedEntry: the resources and prompts lists are
// the same list as the tools.
func TestFilterKeepsTheSelectedEntry(t *testing.T) {
	l := newEntryList(&common{Styles: newStyles(true), Keys: defaultKeyMap()}, "PROMPTS", "prompts", 3)
	l.SetSize(30, 20)
	l.SetEntries(promptEntries([]mcp.Prompt{{Name: "greet"}, {Name: "summarize"}, {Name: "greet-long"}}), nil)
	l.list.MoveBy(2)
	l.SetFilter("greet")
	if got := l.Selected(); got == nil || got.id != "greet-long" {
		t.Errorf("after /greet the selection is %+v, want greet-long", got)
	}
	if !strings.Contains(l.View(), "PROMPTS 2/3 /greet") {
		t.Errorf("the title does not count the filter:\n%s", l.View())
	}
}

func toolName(t *mcp.Tool) string {
	if t == nil {
		return "none"
	}
	return t.Name
}

// TestTableKeepsItsSelectionAsTheStoreTrims: the store trims its oldest
// finished rows in place; the table's selection stays on a row that is
// kept, and goes to the next row when its own is trimmed.
func TestTableKeepsItsSelectionAsTheStoreTrims(t *testing.T) {
	m := New(Options{now: func() time.Time { return testEpoch }, static: true})
	m.resize(120, 35)
	m.store.Keep = 4
	batch := func(from, to int, final bool) {
		var items []any
		for i := from; i <= to; i++ {
			ref := session.Ref{Seq: uint64(i), ID: session.IntID(int64(i))}
			items = append(items, session.RequestStarted{Info: session.RequestInfo{Seq: ref.Seq, ID: ref.ID,
				Method: "ping", State: session.Pending, Started: testEpoch}})
			if final {
				items = append(items, session.StateChanged{Ref: ref, From: session.Pending, To: session.Completed, At: testEpoch})
			}
		}
		m.applyBatch(&rows.Batch{Items: items})
	}
	seqOf := func(r *rows.Row) int64 {
		if r == nil {
			return 0
		}
		return int64(r.Seq)
	}
	batch(1, 1, false) // pending: never trimmed
	batch(2, 6, true)
	m.table.SelectSeq(1)
	batch(7, 8, true) // trims 2 to 4
	if r := m.table.Selected(); seqOf(r) != 1 {
		t.Fatalf("selected %d, want the pending row 1, which is kept", seqOf(r))
	}
	m.table.SelectSeq(6)
	batch(9, 10, true) // trims 5 and 6
	if m.store.Get(6) != nil || m.store.Get(7) == nil {
		t.Fatal("rows 6 and 7 not as the test needs them: 6 trimmed, 7 kept")
	}
	r := m.table.Selected()
	if seqOf(r) != 7 {
		t.Errorf("selected %d, want 7, the row after the trimmed row 6", seqOf(r))
	}
	m.table.SetFilter("#")
	if got := m.table.Selected(); got != r {
		t.Errorf("after /# (every row) selected %d, want 7 still", seqOf(got))
	}
	m.table.SetFilter("#9")
	if got := m.table.Selected(); seqOf(got) != 9 {
		t.Errorf("after /#9 selected %d, want 9", seqOf(got))
	}
}

// TestWheelScrollsTheWireLogLikeTheOtherLists: the wheel over the wire
// log moved its selection, where over the tools, the entries and the
// requests it scrolls the window; now it scrolls, and the keys move.
func TestWheelScrollsTheWireLogLikeTheOtherLists(t *testing.T) {
	w := newWireLog(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	w.SetSize(100, 12) // 11 rows
	w.Reset(testEpoch)
	var recs []wire.Record
	for i := range 100 {
		recs = append(recs, wire.Record{At: testEpoch.Add(time.Duration(i)), Dir: wire.In, Kind: wire.KindFrame, Data: []byte(`{}`)})
	}
	w.Add(recs, 0)
	w.Scroll(-3)
	w.Scroll(-3)
	if from, _ := w.list.Window(); from != 100-11-6 || w.list.Cursor() != 100-7 || w.list.Following() {
		t.Errorf("after two wheel notches up: window from %d, cursor %d, following %v; want 83, 93, false",
			from, w.list.Cursor(), w.list.Following())
	}
	w.Update(keyMsg("down"))
	if w.list.Cursor() != 100-6 {
		t.Errorf("down moved the cursor to %d, want 94", w.list.Cursor())
	}
	w.Scroll(1 << 30)
	if !w.list.Following() {
		t.Error("the wheel to the end did not follow the newest frames again")
	}
}

// TestClickOnAToolBelowAWrappedName: the selected tool's long name wraps
// over more lines than its place, which pushes the tools under it down;
// a click there took the tool a line count said, not the one drawn.
func TestClickOnAToolBelowAWrappedName(t *testing.T) {
	l := newToolList(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	l.SetSize(24, 20)
	long := strings.Repeat("very_long_tool_name_", 3)
	l.SetTools([]mcp.Tool{{Name: long, Description: "d"}, {Name: "echo", Description: "e"}, {Name: "sleep", Description: "s"}}, nil)
	lines := strings.Split(ansi.Strip(l.View()), "\n")
	y := -1
	for i, line := range lines {
		if strings.Contains(line, "sleep") {
			y = i
		}
	}
	if y < 0 {
		t.Fatalf("sleep not drawn:\n%s", strings.Join(lines, "\n"))
	}
	if !l.ClickAt(y) || l.Selected().Name != "sleep" {
		t.Errorf("a click on line %d, where sleep is drawn, selected %s:\n%s", y, toolName(l.Selected()), strings.Join(lines, "\n"))
	}
	if l.ClickAt(0) || l.ClickAt(len(lines)-1) {
		t.Error("a click on the title or below the tools selected one")
	}
}

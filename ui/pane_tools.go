package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/ui/list"
)

// toolList is the filterable list of the server's tools.
type toolList struct {
	c *common

	list    *list.Filtered[mcp.Tool, string]
	loading bool
	err     string
	// note takes the list's place, muted: attached to a proxy, the
	// tools are the host's to call, and the host's report card shows
	// here. noteTop is its first line shown: a card is longer than the
	// pane, and scrolls. noteTitle names the pane while a note shows.
	note      string
	noteTitle string
	noteTop   int

	width, height int
	focusable
}

func newToolList(c *common) *toolList {
	return &toolList{c: c, loading: true, list: list.New(list.Options[mcp.Tool, string]{
		Match: matchTool,
		Same:  func(a, b mcp.Tool) bool { return a.Name == b.Name },
	})}
}

// matchTool reports whether a tool's name or description holds the
// query, in any case.
func matchTool(t mcp.Tool, query string) bool {
	f := strings.ToLower(query)
	return strings.Contains(strings.ToLower(t.Name), f) || strings.Contains(strings.ToLower(t.Description), f)
}

// Tools are every tool, shown or not.
func (t *toolList) Tools() []mcp.Tool { return t.list.Items() }

// SetSize sets the pane's size, title included.
func (t *toolList) SetSize(w, h int) {
	t.width, t.height = w, h
	t.list.SetHeight(t.rows())
}

// SetTools replaces the list, keeping the selection by name.
func (t *toolList) SetTools(tools []mcp.Tool, err error) {
	t.loading, t.err = false, ""
	if err != nil {
		t.err = termtext.Line(err.Error())
	}
	t.list.SetItems(tools)
	t.list.SetHeight(t.rows())
}

// Filter is the filter as typed.
func (t *toolList) Filter() string { return t.list.Query() }

// SetFilter shows only tools whose name or description holds s.
func (t *toolList) SetFilter(s string) {
	t.list.SetQuery(s)
	t.list.SetHeight(t.rows())
}

// Selected is the tool under the cursor, or nil.
func (t *toolList) Selected() *mcp.Tool {
	if tool, ok := t.list.Selected(); ok {
		return &tool
	}
	return nil
}

// Select moves the cursor to the tool named name, if it is shown.
func (t *toolList) Select(name string) bool {
	return t.list.SelectWhere(func(tool mcp.Tool) bool { return tool.Name == name })
}

// itemLines is how many lines one tool takes: name and description when
// there is room, the name alone on short screens.
func (t *toolList) itemLines() int {
	if t.width >= 18 && t.height-1 >= 2*min(t.list.Shown(), 4) {
		return 2
	}
	return 1
}

func (t *toolList) rows() int { return max((t.height-1)/t.itemLines(), 1) }

// MoveBy moves the cursor n items (the note n lines, when it shows).
func (t *toolList) MoveBy(n int) {
	if t.note != "" {
		t.scrollNote(n)
		return
	}
	t.list.MoveBy(n)
}

// Scroll moves the view n items without moving past the ends.
func (t *toolList) Scroll(n int) {
	if t.note != "" {
		t.scrollNote(n)
		return
	}
	t.list.Scroll(n)
}

// noteLines is the note wrapped to the pane.
func (t *toolList) noteLines() []string {
	return wrapLines(t.c.Styles.Muted.Render(t.note), t.width)
}

// scrollNote moves the note n lines, without moving past its ends.
func (t *toolList) scrollNote(n int) {
	t.noteTop = max(min(t.noteTop+n, len(t.noteLines())-(t.height-1)), 0)
}

// ClickAt selects the item at line y of the pane; it reports a hit.
func (t *toolList) ClickAt(y int) bool {
	_, of := t.draw()
	if y < 0 || y >= len(of) || of[y] < 0 {
		return false
	}
	t.list.Select(of[y])
	return true
}

// Update implements bodyPane: navigation keys.
func (t *toolList) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if n, ok := navScroll(t.c.Keys.Nav, k, t.rows()); ok {
		t.MoveBy(n) // MoveBy clamps, so top and bottom reach the ends
	}
	return nil
}

// View renders the pane.
func (t *toolList) View() string {
	lines, _ := t.draw()
	return padLines(lines, t.width, t.height)
}

// draw renders the pane's lines and says, for each, which shown tool it
// draws (-1: none), so that a click selects what is drawn where it
// lands, a wrapped name and all.
func (t *toolList) draw() (lines []string, of []int) {
	st := t.c.Styles
	l := t.list
	title := "TOOLS" + filterCount(l.Query(), l.Shown(), l.Len(), t.loading)
	if t.note != "" && t.noteTitle != "" {
		title = t.noteTitle
	}
	lines = []string{leftTitle(st, t.focused, title, 1, t.width)}
	switch {
	case t.note != "":
		note := t.noteLines()
		top := max(min(t.noteTop, len(note)-(t.height-1)), 0)
		if top > 0 || len(note) > t.height-1 {
			lines[0] = leftTitle(st, t.focused, fmt.Sprintf("%s %d-%d/%d", title, top+1, min(top+t.height-1, len(note)), len(note)), 1, t.width)
		}
		lines = append(lines, note[top:]...)
	case t.loading:
		lines = append(lines, st.Muted.Render("loading…"))
	case t.err != "":
		lines = append(lines, wrapLines(st.StatusErr.Render(t.err), t.width)...)
	case l.Shown() == 0 && l.Filtering():
		lines = append(lines, noMatch(st, l.Query(), t.width)...)
	case l.Shown() == 0:
		lines = append(lines, st.Muted.Render("no tools"))
	}
	for range lines {
		of = append(of, -1)
	}
	per := t.itemLines()
	var items [][]string
	first, selectedAt := l.Offset(), -1
	for i := l.Offset(); i < l.Shown() && i < l.Offset()+t.height; i++ {
		if i == l.Cursor() {
			selectedAt = len(items)
		}
		items = append(items, t.itemView(l.At(i), i == l.Cursor(), per))
	}
	// The selected name may wrap over more lines than its place: drop
	// items from the top until it shows whole.
	room := t.height - len(lines)
	for selectedAt > 0 && linesUpTo(items, selectedAt) > room {
		items, selectedAt, first = items[1:], selectedAt-1, first+1
	}
	for i, item := range items {
		lines = append(lines, item...)
		for range item {
			of = append(of, first+i)
		}
	}
	if len(lines) > t.height {
		lines, of = lines[:t.height], of[:t.height]
	}
	return lines, of
}

// maxNameLines bounds how many lines the selected tool's name wraps to.
const maxNameLines = 3

// linesUpTo is how many lines items take, up to and including item i.
func linesUpTo(items [][]string, i int) int {
	n := 0
	for _, item := range items[:i+1] {
		n += len(item)
	}
	return n
}

// itemView renders one tool in per lines. The selected tool's name wraps
// whole when there is room, so a long name can be read; the others clip.
func (t *toolList) itemView(tool mcp.Tool, selected bool, per int) []string {
	st := t.c.Styles
	name := termtext.Line(tool.Name)
	marker := "  "
	nameStyle := st.Text
	if selected {
		marker = "› "
		nameStyle = st.Selected
		if !t.focused {
			nameStyle = st.SelectBlur
		}
	}
	desc := termtext.Line(tool.Description)
	// On one line the name needs room too.
	badge := hiddenBadge(st, tool.Hidden, per == 1 && t.width-2 < 22 || t.width-2 < 11)
	var out []string
	// Only with room to spare: a cramped list (one line a tool) clips.
	if selected && per == 2 && lipWidth(name) > t.width-2 {
		parts := wrapLines(name, t.width-2)
		if len(parts) > maxNameLines {
			// An escaped hostile name can run for lines: enough to read a
			// real name by, not a screenful.
			parts = parts[:maxNameLines]
			parts[maxNameLines-1] = clip(parts[maxNameLines-1]+"…", t.width-2)
		}
		for i, part := range parts {
			m := "  "
			if i == 0 {
				m = marker
			}
			out = append(out, m+nameStyle.Render(part))
		}
	} else if per == 1 {
		room := t.width - 2
		if badge != "" {
			room -= lipWidth(badge) + 1
		}
		line := marker + nameStyle.Render(clip(name, max(room, 1)))
		if badge != "" {
			line += " " + badge
		}
		if rest := t.width - lipWidth(line) - 1; rest > 10 && desc != "" {
			line += " " + st.Muted.Render(clip(desc, rest))
		}
		return []string{line}
	} else {
		out = append(out, marker+nameStyle.Render(clip(name, t.width-2)))
	}
	if badge != "" {
		// The badge leads the second line: it is what to read first.
		return append(out, "  "+badge+" "+st.Muted.Render(clip(desc, t.width-3-lipWidth(badge))))
	}
	return append(out, "  "+st.Muted.Render(clip(desc, t.width-2)))
}

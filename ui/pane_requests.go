package ui

import (
	"cmp"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/list"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// requestTable shows every request of the session, one row each. Only
// the rows on screen are rendered, so its cost does not grow with the
// table.
type requestTable struct {
	c     *common
	store *rows.Store

	// list holds the store's rows as of listVer, the store's version.
	list    *list.Filtered[*rows.Row, rowFilter]
	listVer uint64
	width   int
	height  int
	focusable
	wantSelected uint64 // Seq to select as soon as its row appears
	paints       *rowPaints
}

// rowFilter is what the table shows: rows whose id, method, tool or
// state holds text, and only task rows (K).
type rowFilter struct {
	text      string // as typed, for the title and to edit again
	lower     string // text, lower case
	tasksOnly bool
}

// matchRow reports whether r passes f.
func matchRow(r *rows.Row, f rowFilter) bool {
	if f.tasksOnly && !r.IsTask() {
		return false
	}
	return strings.Contains(strings.ToLower(r.Method+" "+r.Tool+" #"+termtext.Line(r.ID.String())+" "+rowStateWord(r)), f.lower)
}

// rowPaints are the table's styles as painters, rebuilt when the styles
// change (a background colour report).
type rowPaints struct {
	styles                                   *styles
	muted, cancelled, warn, badge, err, full painter
	empty, selected, selectBlur, toolError   painter
	state                                    [session.Cancelled + 1]painter
}

func (t *requestTable) paint() *rowPaints {
	st := t.c.Styles
	if t.paints != nil && t.paints.styles == st {
		return t.paints
	}
	p := &rowPaints{styles: st, muted: newPainter(st.Muted), cancelled: newPainter(st.StateCancelled),
		warn: newPainter(st.BadgeWarn), badge: newPainter(st.Badge), err: newPainter(st.StatusErr),
		full: newPainter(st.ProgressFull), empty: newPainter(st.ProgressEmpty),
		selected: newPainter(st.Selected), selectBlur: newPainter(st.SelectBlur), toolError: newPainter(st.StateToolError)}
	for s := range p.state {
		p.state[s] = newPainter(stateStyle(st, session.State(s)))
	}
	t.paints = p
	return p
}

func newRequestTable(c *common, store *rows.Store) *requestTable {
	return &requestTable{c: c, store: store, list: list.New(list.Options[*rows.Row, rowFilter]{
		Match: matchRow,
		Same:  func(a, b *rows.Row) bool { return a == b },
		// Rows arrive in order: a row trimmed or filtered out gives the
		// selection to the next one.
		Order: func(a, b *rows.Row) int { return cmp.Compare(a.Ord(), b.Ord()) },
	})}
}

// SetSize sets the pane's size, title and column heads included.
func (t *requestTable) SetSize(w, h int) {
	t.width, t.height = w, h
	t.rowList().SetHeight(t.visibleRows())
}

// visibleRows is how many table rows fit.
func (t *requestTable) visibleRows() int { return max(t.height-2, 1) }

// rowList is the list, brought up to date with the store's rows: the
// store changes its slice in place, so nothing else reads the list.
func (t *requestTable) rowList() *list.Filtered[*rows.Row, rowFilter] {
	if t.listVer != t.store.Version || t.list.Len() != t.store.Len() {
		t.listVer = t.store.Version
		t.list.SetItems(t.store.Rows)
	}
	return t.list
}

// rows is the list on screen: every row, or those matching the filter.
func (t *requestTable) rows() []*rows.Row { return t.rowList().ShownItems() }

// Filter is the filter as typed.
func (t *requestTable) Filter() string { return t.list.Query().text }

// TasksOnly reports whether only task rows show.
func (t *requestTable) TasksOnly() bool { return t.list.Query().tasksOnly }

// SetFilter shows only rows whose id, method, tool or state holds s.
func (t *requestTable) SetFilter(s string) {
	f := t.list.Query()
	f.text, f.lower = s, strings.ToLower(s)
	t.rowList().SetQuery(f)
}

// SetTasksOnly shows only task rows, or every row again.
func (t *requestTable) SetTasksOnly(on bool) {
	f := t.list.Query()
	f.tasksOnly = on
	t.rowList().SetQuery(f)
}

// Filtered reports whether a filter hides rows, and the rows it shows.
func (t *requestTable) Filtered() ([]*rows.Row, bool) {
	if !t.list.Filtering() {
		return nil, false
	}
	return t.rows(), true
}

// Selected is the selected row, or nil.
func (t *requestTable) Selected() *rows.Row {
	r, _ := t.rowList().Selected()
	return r
}

// SelectSeq selects the row of request seq now, or when it appears.
func (t *requestTable) SelectSeq(seq uint64) {
	if r := t.store.Get(seq); r != nil {
		t.rowList().SelectItem(r)
		t.wantSelected = 0
		return
	}
	t.wantSelected = seq
}

// atBottom reports whether the last row is on screen, so that new rows
// keep scrolling into view.
func (t *requestTable) atBottom() bool { return t.rowList().AtBottom() }

// sync keeps the selection valid and on screen after rows changed.
// follow scrolls to the newest rows as far as the selection allows.
func (t *requestTable) sync(follow bool) {
	l := t.rowList()
	if t.wantSelected != 0 {
		if r := t.store.Get(t.wantSelected); r != nil {
			l.SelectItem(r)
			t.wantSelected = 0
		}
	}
	if follow {
		l.ShowEnd()
	}
}

// MoveBy moves the selection n rows.
func (t *requestTable) MoveBy(n int) { t.rowList().MoveBy(n) }

// Scroll moves the view n rows, dragging the selection along when it
// would leave the screen.
func (t *requestTable) Scroll(n int) { t.rowList().Scroll(n) }

// ClickAt selects the row at line y of the pane; it reports a hit.
func (t *requestTable) ClickAt(y int) bool { return y >= 2 && t.rowList().SelectRow(y-2) }

// Update implements bodyPane: navigation keys.
func (t *requestTable) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if n, ok := navScroll(t.c.Keys.Nav, k, t.visibleRows()); ok {
		t.MoveBy(n)
	}
	return nil
}

// shortMethods name a request by its verb when the method and its target
// do not fit: "read demo://readme", not "resources/read dem…".
var shortMethods = map[string]string{
	"tools/call":            "call",
	"resources/read":        "read",
	"prompts/get":           "prompt",
	"completion/complete":   "complete",
	"resources/subscribe":   "subscribe",
	"resources/unsubscribe": "unsubscribe",
	"logging/setLevel":      "setLevel",
}

// columns are the widths of the table's columns for a pane width.
type columns struct{ id, method, state, elapsed, notes int }

func layoutColumns(w int) columns {
	avail := w - 2 - 4 // selection marker, gaps
	c := columns{id: 4, state: 16, elapsed: 7}
	if avail < 60 {
		c.id, c.state, c.elapsed = 3, 12, 6
	}
	c.method = min(max(avail*22/100, 12), 26)
	c.notes = avail - c.id - c.method - c.state - c.elapsed
	if c.notes < 0 {
		c.method = max(c.method+c.notes, 6)
		c.notes = 0
	}
	return c
}

// View renders the pane.
func (t *requestTable) View() string {
	st := t.c.Styles
	l := t.rowList()
	shown, filter, tasksOnly := l.Shown(), t.Filter(), t.TasksOnly()
	title := "REQUESTS" + filterCount(filter, shown, t.store.Len(), false)
	if tasksOnly {
		title = "TASKS" + strings.TrimPrefix(title, "REQUESTS")
		if filter == "" {
			title = fmt.Sprintf("TASKS %d/%d", shown, t.store.Len())
		}
	}
	if n := t.store.Dropped; n > 0 {
		title += fmt.Sprintf(" (%d oldest not kept)", n)
	}
	cols := layoutColumns(t.width)
	lines := make([]string, 0, t.height)
	lines = append(lines, st.paneTitleView(t.focused, title, t.width))
	elapsedHead := "ELAPSED"
	if cols.elapsed < len(elapsedHead) {
		elapsedHead = "TIME"
	}
	headings := "  " + fit("ID", cols.id) + " " + fit("METHOD", cols.method) + " " +
		fit("STATE", cols.state) + " " + fmt.Sprintf("%*s", cols.elapsed, elapsedHead) + " " + fit("PROGRESS · NOTES", cols.notes)
	lines = append(lines, st.ColumnHead.Render(fit(headings, t.width)))
	switch {
	case shown == 0 && tasksOnly && filter == "":
		lines = append(lines, st.Muted.Render(clip("  no tasks yet: a tool that requires one runs as a task; "+
			t.c.Keys.Global.Tasks.Help().Key+" shows every request", t.width)))
	case shown == 0 && filter != "":
		lines = append(lines, st.Muted.Render(clip("  no match for /"+termtext.Line(filter)+"; esc clears", t.width)))
	case shown == 0:
		lines = append(lines, st.Muted.Render("  no requests yet"))
	}
	selected, _ := l.Selected()
	from, to := l.Window()
	for i := from; i < to; i++ {
		lines = append(lines, t.rowView(l.At(i), cols, selected))
	}
	return padLines(lines, t.width, t.height)
}

// rowView renders one row.
func (t *requestTable) rowView(r *rows.Row, cols columns, sel *rows.Row) string {
	pt := t.paint()
	selected := r == sel
	// A selected row is drawn plain then reversed, so it reads the same
	// with or without colour.
	plain := selected
	style := func(s string, p painter) string {
		if plain {
			return s
		}
		return p.Render(s)
	}
	id := termtext.Line(r.ID.String()) // chosen by the server for incoming and stray rows
	if r.IsStray() && r.ID.IsZero() {
		id = "?"
	}
	if r.HostSession != "" {
		id = termtext.Line(r.HostSession) + ":" + id // a proxied HTTP session's: ids repeat across them
	}
	method := r.Method
	if r.IsTask() {
		method = "task" // of the tool, created by the request with its id
	}
	if r.Tool != "" {
		method += " " + r.Tool
		if short, ok := shortMethods[r.Method]; ok && lipWidth(method) > cols.method && !r.IsTask() {
			method = short + " " + r.Tool // the target says more than the method's namespace
		}
	}
	if r.Incoming {
		method = "← " + method
	}
	method = termtext.Line(method)

	var stateCell string
	if r.IsStray() {
		stateCell = style(fit("? no such id", cols.state), pt.muted)
	} else {
		// No settle time here: next to ELAPSED it would read as run time.
		word := rowStateGlyph(t.c, r) + " " + rowStateWord(r)
		p := pt.state[r.State]
		if r.ToolError {
			p = pt.toolError
		}
		stateCell = style(fit(word, cols.state), p)
	}
	elapsed := ""
	if !r.IsStray() {
		elapsed = formatDuration(r.Ran(t.c.Now()))
	}
	notes := t.notes(r, cols.notes, plain)

	marker := "  "
	if selected {
		marker = "› "
	}
	idMethod := fit(id, cols.id) + " " + fit(method, cols.method)
	if r.State == session.Cancelled && !r.IsStray() {
		idMethod = style(idMethod, pt.cancelled) // dim, but badges keep their colour
	}
	// Every cell is exactly its column's width, so the line needs no
	// measuring.
	line := marker + idMethod + " " + stateCell + " " +
		style(fmt.Sprintf("%*s", cols.elapsed, elapsed), pt.muted) + " " + notes
	switch pad := t.width - (2 + cols.id + 1 + cols.method + 1 + cols.state + 1 + cols.elapsed + 1 + cols.notes); {
	case pad > 0:
		line += strings.Repeat(" ", pad)
	case pad < 0: // a pane too narrow for the columns
		line = fit(line, t.width)
	}
	switch {
	case selected && t.focused:
		return pt.selected.Render(line)
	case selected:
		return pt.selectBlur.Render(line)
	}
	return line
}

// notes is the progress bar and the badges of a row.
func (t *requestTable) notes(r *rows.Row, w int, plain bool) string {
	pt := t.paint()
	if w <= 0 {
		return ""
	}
	render := func(s string, p painter) string {
		if plain {
			return s
		}
		return p.Render(s)
	}
	var parts []string
	if r.Progress != nil && (r.State == session.Pending || r.State == session.Cancelling) {
		parts = append(parts, progressView(pt, &r.Progress.Latest, min(10, w/3), plain))
	}
	if note := t.taskNote(r); note != "" {
		parts = append(parts, render(note, pt.muted))
	}
	if note := pageNote(r); note != "" {
		parts = append(parts, render(note, pt.muted))
	}
	var tail []string
	// A lost row's reason repeats its badge; the detail has the whole text.
	switch {
	case r.EraProbe && r.State == session.TimedOut:
		// The era probe of a legacy server: how auto mode works, not a fault.
		tail = append(tail, render("no answer in time: initialize followed", pt.muted))
	case r.EraProbe:
		tail = append(tail, render("legacy server: initialize followed", pt.muted))
	case r.State == session.Failed && r.Reason != "" && !r.Lost():
		tail = append(tail, render(termtext.Line(r.Reason), pt.err))
	}
	// Badges matter most: use the longest wording that fits.
	bs := badges(r, t.c.Now())
	for level := 0; level < 3; level++ {
		texts := append([]string(nil), parts...)
		for _, b := range bs {
			texts = append(texts, render(b.variant(level), b.painter(pt)))
		}
		if lipWidth(strings.Join(texts, " ")) <= w || level == 2 {
			parts = texts
			break
		}
	}
	parts = append(parts, tail...)
	return fit(strings.Join(parts, " "), w)
}

// pageNote tells a list's later pages from its first: each page is a
// request of the same method, which would otherwise read as a repeat.
func pageNote(r *rows.Row) string {
	if r.Incoming {
		return ""
	}
	cursor := mcp.PageCursor(r.Method, r.Params)
	if cursor == "" {
		return ""
	}
	if c := []rune(cursor); len(c) > 12 {
		cursor = string(c[:12]) + "…"
	}
	return `next page, cursor "` + termtext.Line(cursor) + `"`
}

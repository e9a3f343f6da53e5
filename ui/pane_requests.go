package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// requestTable shows every request of the session, one row each. Only
// the rows on screen are rendered, so its cost does not grow with the
// table.
type requestTable struct {
	c     *common
	store *rows.Store

	filter      string      // as typed, for the title and to edit again
	tasksOnly   bool        // only task rows (K)
	match       string      // filter, lower case
	filtered    []*rows.Row // rows matching filter, when there is one
	filteredVer uint64
	selected    *rows.Row
	offset      int
	width       int
	height      int
	focusable
	wantSelected uint64 // Seq to select as soon as its row appears
	paints       *rowPaints
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
	return &requestTable{c: c, store: store}
}

// SetSize sets the pane's size, title and column heads included.
func (t *requestTable) SetSize(w, h int) {
	t.width, t.height = w, h
	t.sync(false)
}

// visibleRows is how many table rows fit.
func (t *requestTable) visibleRows() int { return max(t.height-2, 1) }

// rows is the list on screen: every row, or those matching the filter.
func (t *requestTable) rows() []*rows.Row {
	if t.match == "" && !t.tasksOnly {
		return t.store.Rows
	}
	if t.filteredVer != t.store.Version {
		t.refilter()
	}
	return t.filtered
}

// SetFilter shows only rows whose id, method, tool or state holds s.
func (t *requestTable) SetFilter(s string) {
	t.filter, t.match = s, strings.ToLower(s)
	t.refilter()
	t.sync(false)
}

func (t *requestTable) refilter() {
	t.filteredVer = t.store.Version
	t.filtered = t.filtered[:0]
	for _, r := range t.store.Rows {
		if t.tasksOnly && !r.IsTask() {
			continue
		}
		if strings.Contains(strings.ToLower(r.Method+" "+r.Tool+" #"+termtext.Line(r.ID.String())+" "+rowStateWord(r)), t.match) {
			t.filtered = append(t.filtered, r)
		}
	}
}

// Filtered reports whether a filter hides rows, and the rows it shows.
func (t *requestTable) Filtered() ([]*rows.Row, bool) {
	if t.match == "" && !t.tasksOnly {
		return nil, false
	}
	return t.rows(), true
}

// Selected is the selected row, or nil.
func (t *requestTable) Selected() *rows.Row { return t.selected }

// SelectSeq selects the row of request seq now, or when it appears.
func (t *requestTable) SelectSeq(seq uint64) {
	if r := t.store.Get(seq); r != nil {
		t.selected = r
		t.wantSelected = 0
		t.sync(false)
		return
	}
	t.wantSelected = seq
}

// cursor is the selected row's index in rows(), or -1.
func (t *requestTable) cursor() int {
	rows := t.rows()
	if t.selected == nil || len(rows) == 0 {
		return -1
	}
	ord := t.selected.Ord()
	lo, hi := 0, len(rows)
	for lo < hi {
		m := (lo + hi) / 2
		if rows[m].Ord() < ord {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(rows) && rows[lo] == t.selected {
		return lo
	}
	return -1
}

// atBottom reports whether the last row is on screen, so that new rows
// keep scrolling into view.
func (t *requestTable) atBottom() bool {
	return t.offset+t.visibleRows() >= len(t.rows())
}

// sync keeps the selection valid and on screen after rows, the filter or
// the size changed. follow scrolls to the newest rows.
func (t *requestTable) sync(follow bool) {
	rows := t.rows()
	if t.wantSelected != 0 {
		if r := t.store.Get(t.wantSelected); r != nil {
			t.selected, t.wantSelected = r, 0
		}
	}
	cur := t.cursor()
	if cur < 0 && len(rows) > 0 {
		// The selection was trimmed or filtered out: take the nearest.
		cur = 0
		if t.selected != nil {
			for cur < len(rows)-1 && rows[cur].Ord() < t.selected.Ord() {
				cur++
			}
		}
		t.selected = rows[cur]
	}
	if len(rows) == 0 {
		t.selected, t.offset = nil, 0
		return
	}
	n := t.visibleRows()
	if follow {
		t.offset = max(len(rows)-n, 0)
	}
	if cur < t.offset {
		t.offset = cur
	}
	if cur >= t.offset+n {
		t.offset = cur - n + 1
	}
	t.offset = max(min(t.offset, len(rows)-n), 0)
}

// MoveBy moves the selection n rows.
func (t *requestTable) MoveBy(n int) {
	rows := t.rows()
	if len(rows) == 0 {
		return
	}
	cur := max(min(t.cursor()+n, len(rows)-1), 0)
	t.selected = rows[cur]
	t.sync(false)
}

// Scroll moves the view n rows, dragging the selection along when it
// would leave the screen.
func (t *requestTable) Scroll(n int) {
	rows := t.rows()
	vis := t.visibleRows()
	t.offset = max(min(t.offset+n, len(rows)-vis), 0)
	cur := t.cursor()
	if cur >= 0 && cur < t.offset {
		t.selected = rows[t.offset]
	} else if cur >= t.offset+vis {
		t.selected = rows[min(t.offset+vis-1, len(rows)-1)]
	}
}

// ClickAt selects the row at line y of the pane; it reports a hit.
func (t *requestTable) ClickAt(y int) bool {
	rows := t.rows()
	i := t.offset + y - 2
	if y < 2 || i >= len(rows) {
		return false
	}
	t.selected = rows[i]
	return true
}

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
	rows := t.rows()
	title := fmt.Sprintf("REQUESTS %d", t.store.Len())
	if t.filter != "" {
		title = fmt.Sprintf("REQUESTS %d/%d /%s", len(rows), t.store.Len(), termtext.Line(t.filter))
	}
	if t.tasksOnly {
		title = "TASKS" + strings.TrimPrefix(title, "REQUESTS")
		if t.filter == "" {
			title = fmt.Sprintf("TASKS %d/%d", len(rows), t.store.Len())
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
	case len(rows) == 0 && t.tasksOnly && t.filter == "":
		lines = append(lines, st.Muted.Render(clip("  no tasks yet: a tool that requires one runs as a task; "+
			t.c.Keys.Global.Tasks.Help().Key+" shows every request", t.width)))
	case len(rows) == 0 && t.filter != "":
		lines = append(lines, st.Muted.Render(clip("  no match for /"+termtext.Line(t.filter)+"; esc clears", t.width)))
	case len(rows) == 0:
		lines = append(lines, st.Muted.Render("  no requests yet"))
	}
	end := min(t.offset+t.visibleRows(), len(rows))
	for i := t.offset; i < end; i++ {
		lines = append(lines, t.rowView(rows[i], cols))
	}
	return padLines(lines, t.width, t.height)
}

// rowView renders one row.
func (t *requestTable) rowView(r *rows.Row, cols columns) string {
	pt := t.paint()
	selected := r == t.selected
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

// SetTasksOnly shows only task rows, or every row again.
func (t *requestTable) SetTasksOnly(on bool) {
	t.tasksOnly = on
	t.refilter()
	t.sync(false)
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

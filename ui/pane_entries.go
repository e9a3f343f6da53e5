package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/ui/list"
)

// entryKind says what an entry of the left pane's Resources or Prompts
// list is.
type entryKind int

const (
	entryResource entryKind = iota
	entryTemplate
	entryPrompt
)

// entry is one resource, template or prompt in an entryList. Its strings
// are the server's, raw: they are escaped when drawn.
type entry struct {
	kind entryKind
	// id is what requests name it by: a URI, a URI template or a name.
	id       string
	name     string
	desc     string
	hidden   mcp.HiddenText
	resource mcp.Resource
	template mcp.ResourceTemplate
	prompt   mcp.Prompt
}

// resourceEntries lists resources, then templates.
func resourceEntries(resources []mcp.Resource, templates []mcp.ResourceTemplate) []entry {
	var out []entry
	for _, r := range resources {
		name := r.Name
		if r.Title != "" {
			name = r.Title
		}
		out = append(out, entry{kind: entryResource, id: r.URI, name: name, desc: r.URI, hidden: r.Hidden, resource: r})
	}
	for _, t := range templates {
		name := t.Name
		if t.Title != "" {
			name = t.Title
		}
		out = append(out, entry{kind: entryTemplate, id: t.URITemplate, name: name, desc: t.URITemplate, hidden: t.Hidden, template: t})
	}
	return out
}

// promptEntries lists prompts.
func promptEntries(prompts []mcp.Prompt) []entry {
	out := make([]entry, len(prompts))
	for i, p := range prompts {
		desc := p.Description
		if p.Title != "" && p.Title != p.Name {
			desc = p.Title
		}
		out[i] = entry{kind: entryPrompt, id: p.Name, name: p.Name, desc: desc, hidden: p.Hidden, prompt: p}
	}
	return out
}

// resourceMark is what the list shows beside a resource: subscribed, and
// how many notifications/resources/updated came since it was last read.
type resourceMark struct {
	subscribed bool
	updates    int
}

// entryList is the filterable list of the server's resources or prompts,
// drawn like the tools: a name line and a muted line under it.
type entryList struct {
	c *common
	// title names the list ("RESOURCES"), tab its number key; none and
	// noun say what an empty list lacks.
	title, noun string
	tab         int

	list    *list.Filtered[entry, string]
	loading bool
	err     string
	// marks are by entry id (resources only).
	marks map[string]resourceMark

	width, height int
	focusable
}

func newEntryList(c *common, title, noun string, tab int) *entryList {
	return &entryList{c: c, title: title, noun: noun, tab: tab, loading: true, marks: map[string]resourceMark{},
		list: list.New(list.Options[entry, string]{
			Match: matchEntry,
			Same:  func(a, b entry) bool { return a.id == b.id && a.kind == b.kind },
		})}
}

// matchEntry reports whether an entry's name, id or description holds
// the query, in any case.
func matchEntry(e entry, query string) bool {
	f := strings.ToLower(query)
	return strings.Contains(strings.ToLower(e.name), f) || strings.Contains(strings.ToLower(e.id), f) ||
		strings.Contains(strings.ToLower(e.desc), f)
}

// SetSize sets the pane's size, title included.
func (l *entryList) SetSize(w, h int) {
	l.width, l.height = w, h
	l.list.SetHeight(l.rows())
}

// SetEntries replaces the list, keeping the selection by id.
func (l *entryList) SetEntries(items []entry, err error) {
	l.loading, l.err = false, ""
	if err != nil {
		l.err = termtext.Line(err.Error())
	}
	l.list.SetItems(items)
}

// Filter is the filter as typed.
func (l *entryList) Filter() string { return l.list.Query() }

// SetFilter shows only entries whose name, id or description holds s.
func (l *entryList) SetFilter(s string) { l.list.SetQuery(s) }

// Selected is the entry under the cursor, or nil.
func (l *entryList) Selected() *entry {
	if e, ok := l.list.Selected(); ok {
		return &e
	}
	return nil
}

// Mark changes the mark of the resource uri.
func (l *entryList) Mark(uri string, change func(*resourceMark)) {
	m := l.marks[uri]
	change(&m)
	if m == (resourceMark{}) {
		delete(l.marks, uri)
		return
	}
	l.marks[uri] = m
}

func (l *entryList) rows() int { return max((l.height-1)/2, 1) }

// Scroll moves the view n items without moving past the ends.
func (l *entryList) Scroll(n int) { l.list.Scroll(n) }

// ClickAt selects the entry at line y of the pane; it reports a hit.
func (l *entryList) ClickAt(y int) bool { return y >= 1 && l.list.SelectRow((y-1)/2) }

// Update implements bodyPane: navigation keys.
func (l *entryList) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if n, ok := navScroll(l.c.Keys.Nav, k, l.rows()); ok {
			l.list.MoveBy(n)
		}
	}
	return nil
}

// View renders the pane.
func (l *entryList) View() string {
	st := l.c.Styles
	fl := l.list
	title := l.title + filterCount(fl.Query(), fl.Shown(), fl.Len(), l.loading)
	lines := []string{leftTitle(st, l.focused, title, l.tab, l.width)}
	switch {
	case l.loading:
		lines = append(lines, st.Muted.Render("loading…"))
	case l.err != "":
		lines = append(lines, wrapLines(st.StatusErr.Render(l.err), l.width)...)
	case fl.Shown() == 0 && fl.Filtering():
		lines = append(lines, noMatch(st, fl.Query(), l.width)...)
	case fl.Shown() == 0:
		lines = append(lines, st.Muted.Render("no "+l.noun))
	}
	for i := fl.Offset(); i < fl.Shown() && len(lines) < l.height; i++ {
		lines = append(lines, l.itemView(fl.At(i), i == fl.Cursor())...)
	}
	if len(lines) > l.height {
		lines = lines[:l.height]
	}
	return padLines(lines, l.width, l.height)
}

// itemView renders one entry in two lines: a marker and its name with
// its marks, then its URI or description, muted.
func (l *entryList) itemView(e entry, selected bool) []string {
	st := l.c.Styles
	marker, nameStyle := "  ", st.Text
	if selected {
		marker, nameStyle = "› ", st.Selected
		if !l.focused {
			nameStyle = st.SelectBlur
		}
	}
	var badges []string
	if e.kind == entryTemplate {
		badges = append(badges, st.Muted.Render("template"))
	}
	if m := l.marks[e.id]; e.kind == entryResource {
		if m.subscribed {
			badges = append(badges, st.Badge.Render("subscribed"))
		}
		if m.updates > 0 {
			badges = append(badges, st.BadgeWarn.Render(fmt.Sprintf("updated ×%d", m.updates)))
		}
	}
	if b := hiddenBadge(st, e.hidden, true); b != "" {
		badges = append(badges, b)
	}
	// The name gets the first line; the marks, which change, lead the
	// second, before the URI or description.
	room := l.width - 2
	line := marker + nameStyle.Render(clip(termtext.Line(e.name), max(room, 1)))
	second := ""
	for _, b := range badges {
		if lipWidth(second)+lipWidth(b)+1 > room {
			break
		}
		second += b + " "
	}
	second += st.Muted.Render(clip(termtext.Line(e.desc), max(room-lipWidth(second), 1)))
	return []string{line, "  " + second}
}

// leftTitle is the title line of the left pane: the list's title, and
// the number keys that switch lists at the right, the shown one marked.
func leftTitle(st *styles, focused bool, title string, active, w int) string {
	var keys []string
	for i := 1; i <= 3; i++ {
		n := fmt.Sprint(i)
		if i == active {
			n = "[" + n + "]"
		}
		keys = append(keys, n)
	}
	tabs := strings.Join(keys, " ")
	head := st.paneTitleView(focused, title, w)
	if lipWidth(head)+1+len(tabs) > w {
		tabs = strings.Join(keys, "") // cramped: 1[2]3
	}
	if lipWidth(head)+1+len(tabs) > w {
		return head
	}
	return head + strings.Repeat(" ", w-lipWidth(head)-len(tabs)) + st.Muted.Render(tabs)
}

package ui

// rect is a pane's place on screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// screenLayout is where every pane goes for a terminal size.
type screenLayout struct {
	header, tools, table, bottom, editor, status, help rect
	// timeline is where the timeline goes: the editor's place, or the
	// whole body on a screen too narrow to spare the tools' column.
	timeline rect
	// timelineWide says the timeline hides the tools.
	timelineWide bool
}

// timelineWideBelow is the screen width under which the timeline takes
// the whole body: its two lanes need the columns more than the tools.
const timelineWideBelow = 100

// minTimelineWidth is the narrowest timeline drawn; the diagram's own
// least width.
const minTimelineWidth = 16

// Smallest sizes the layout is designed for; below them panes get cut.
const (
	minWidth  = 40
	minHeight = 10
)

// computeLayout splits the screen: header on top, status and help at the
// bottom, tools on the left, requests over detail on the right. The
// editor takes the place of requests and detail.
func computeLayout(w, h, headerH, helpH int) screenLayout {
	screenW := w
	w, h = max(w, minWidth), max(h, minHeight)
	var l screenLayout
	l.header = rect{0, 0, w, headerH}
	l.help = rect{0, h - helpH, w, helpH}
	l.status = rect{0, h - helpH - 1, w, 1}
	bodyY := headerH
	bodyH := max(h-headerH-helpH-1, 2)
	toolsW := min(max(w/5, 16), 30)
	l.tools = rect{0, bodyY, toolsW, bodyH}
	rightX := toolsW + 2 // the separator and a space
	rightW := w - rightX
	tableH := max(bodyH*55/100, min(4, bodyH))
	l.table = rect{rightX, bodyY, rightW, tableH}
	l.bottom = rect{rightX, bodyY + tableH, rightW, bodyH - tableH}
	l.editor = rect{rightX, bodyY, rightW, bodyH}
	l.timeline, l.timelineWide = l.editor, w < timelineWideBelow
	if l.timelineWide {
		// Below the narrowest layout too: the diagram becomes a list
		// that fits, where the other panes are cut.
		l.timeline = rect{0, bodyY, max(screenW, minTimelineWidth), bodyH}
	}
	return l
}

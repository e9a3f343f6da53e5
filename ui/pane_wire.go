package ui

import (
	"bytes"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/list"
)

// wireLogSize is how many records the wire log keeps, newest: a stated
// number (help, README, the title once reached), and what W can write.
const wireLogSize = 10000

// wireLogKeep bounds the bytes kept of one record: 10,000 records of a
// server's 32 MiB frames would otherwise pin gigabytes. Size keeps the
// full length, and the expanded view says what was cut.
const wireLogKeep = 64 << 10

// maxCheckedFrame bounds the frames the wire log checks for protocol
// violations (⚠) as it draws them: a huge frame would cost each frame.
const maxCheckedFrame = 16 << 10

// wireLog lists every frame in and out with its time and direction;
// enter shows the selected frame as pretty JSON.
type wireLog struct {
	c *common
	// list holds the records, following the newest unless moved off it.
	list    *list.Filtered[wire.Record, string]
	dropped int
	start   time.Time

	// late marks the inbound records the session took as late traffic,
	// by their tap time (session.LateFrame.At is the record's At).
	late map[time.Time]bool
	// healthIDs are the ids of the health check's pings (health.go),
	// whose frames say so: no row in the table explains them.
	healthIDs map[string]bool

	expanded bool
	exp      scroller
	expLines []string

	width, height int
	focusable
}

func newWireLog(c *common) *wireLog {
	return &wireLog{c: c, list: list.New(list.Options[wire.Record, string]{Tail: true})}
}

// Reset forgets every record, for a new connection.
func (w *wireLog) Reset(start time.Time) {
	w.list.Reset()
	*w = wireLog{c: w.c, list: w.list, start: start, width: w.width, height: w.height, focusable: w.focusable}
}

// Records are the records the log keeps, oldest first, and how many
// older ones it dropped. The slice is shared: do not modify it.
func (w *wireLog) Records() ([]wire.Record, int) { return w.list.Items(), w.dropped }

// MarkHealth marks the frames of request id as the health check's.
func (w *wireLog) MarkHealth(id string) {
	if w.healthIDs == nil {
		w.healthIDs = map[string]bool{}
	}
	w.healthIDs[id] = true
}

// MarkLate marks the record taken at at as late traffic.
func (w *wireLog) MarkLate(at time.Time) {
	if w.late == nil {
		w.late = map[time.Time]bool{}
	}
	w.late[at] = true
}

// SetSize sets the pane's size, title included.
func (w *wireLog) SetSize(width, height int) {
	w.width, w.height = width, height
	w.exp.height = max(height-1, 1)
	w.list.SetHeight(w.rows())
}

// Add appends records, dropping the oldest past wireLogSize.
func (w *wireLog) Add(recs []wire.Record, dropped int) {
	if w.start.IsZero() && len(recs) > 0 {
		w.start = recs[0].At
	}
	w.dropped += dropped
	for _, r := range recs {
		if len(r.Data) > wireLogKeep {
			// A copy: a sub-slice would pin the whole frame.
			r.Data = bytes.Clone(r.Data[:wireLogKeep])
		}
		w.list.Append(r)
	}
	// Exactly wireLogSize, so the stated retention is what it keeps.
	if over := w.list.Len() - wireLogSize; over > 0 {
		w.list.DropFront(over)
		w.dropped += over
		first := w.list.At(0).At
		for at := range w.late {
			if at.Before(first) {
				delete(w.late, at)
			}
		}
	}
}

func (w *wireLog) rows() int { return max(w.height-1, 1) }

// MoveBy moves the selection; moving off the end stops following.
func (w *wireLog) MoveBy(n int) { w.list.MoveBy(n) }

// Scroll scrolls the list as the other lists scroll, dragging the
// selection along when it would leave the window, or the expanded frame.
func (w *wireLog) Scroll(n int) {
	if w.expanded {
		w.exp.Scroll(n)
		return
	}
	w.list.Scroll(n)
}

// ClickAt selects the record at line y of the pane.
func (w *wireLog) ClickAt(y int) bool {
	return !w.expanded && y >= 1 && w.list.SelectRow(y-1)
}

// Update implements bodyPane: navigation, and enter/esc to show or hide
// the selected frame.
func (w *wireLog) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	nav := w.c.Keys.Nav
	switch {
	case key.Matches(k, nav.Open):
		w.Toggle()
	case key.Matches(k, nav.Back):
		w.expanded = false
	default:
		if n, ok := navScroll(nav, k, w.rows()); ok && w.expanded {
			w.exp.Scroll(n)
		} else if ok {
			w.MoveBy(n)
		}
	}
	return nil
}

// Toggle shows or hides the selected frame as pretty JSON.
func (w *wireLog) Toggle() {
	r, ok := w.list.Selected()
	if w.expanded || !ok {
		w.expanded = false
		return
	}
	w.expanded = true
	head := w.describe(r)
	if r.Dir == wire.In && len(r.Data) <= maxCheckedFrame {
		for _, k := range session.CheckMessage(r.Data) {
			head += " violates " + k.String()
		}
	}
	if r.Size > len(r.Data) {
		head += fmt.Sprintf("\nfirst %s of %s kept", byteSize(len(r.Data)), byteSize(r.Size))
	}
	w.expLines = wrapLines(head+"\n"+prettyJSON(r.Data), w.width)
	w.exp = scroller{total: len(w.expLines), height: w.rows()}
}

// describe is a record's time, direction and kind.
func (w *wireLog) describe(r wire.Record) string {
	st := w.c.Styles
	at := fmt.Sprintf("%8.3fs", r.At.Sub(w.start).Seconds())
	switch {
	case r.Kind == wire.KindNoise:
		return st.Muted.Render(at) + " " + st.WireNoise.Render("← noise")
	case r.Kind == wire.KindOversize:
		return st.Muted.Render(at) + " " + st.WireNoise.Render(fmt.Sprintf("← oversize %s, skipped", byteSize(r.Size)))
	case r.Kind == wire.KindHTTP:
		return st.Muted.Render(at) + " " + st.WireNoise.Render("· http ")
	case r.Kind == wire.KindRequestError:
		return st.Muted.Render(at) + " " + st.WireNoise.Render("✗ error")
	case r.Dir == wire.Out:
		return st.Muted.Render(at) + " " + st.WireOut.Render("→ ")
	case len(r.Data) <= maxCheckedFrame && len(session.CheckMessage(r.Data)) > 0:
		return st.Muted.Render(at) + " " + st.WireNoise.Render("← ⚠ ")
	default:
		return st.Muted.Render(at) + " " + st.WireIn.Render("← ")
	}
}

// View renders the pane.
func (w *wireLog) View() string {
	st := w.c.Styles
	title := "WIRE LOG " + english.Plural(w.list.Len()+w.dropped, "frame")
	if w.dropped > 0 {
		title += " · keeps the last " + english.Thousands(wireLogSize) + "; " + english.Thousands(w.dropped) + " older not shown"
	}
	if w.expanded {
		title += " · esc back"
	} else {
		title += " · enter shows JSON"
	}
	lines := []string{st.paneTitleView(w.focused, title, w.width)}
	if w.expanded {
		end := min(w.exp.offset+w.exp.height, len(w.expLines))
		lines = append(lines, w.expLines[w.exp.offset:end]...)
		return padLines(lines, w.width, w.height)
	}
	if w.list.Len() == 0 {
		lines = append(lines, st.Muted.Render("no traffic yet"))
	}
	from, to := w.list.Window()
	for i := from; i < to; i++ {
		r := w.list.At(i)
		head := w.describe(r)
		if w.late[r.At] {
			head += st.BadgeWarn.Render("late") + " "
		}
		// The fields that matter first, then the frame as sent.
		if h, ok := readFrameHead(r.Data); ok && r.Kind == wire.KindFrame {
			if s := h.summary(); s != "" {
				word, rest := summaryWords(s)
				head += st.Strong.Render(word)
				if rest != "" {
					head += " " + rest
				}
				// Ours: the ping out, its answer in; the server's ids are its own.
				if (r.Dir == wire.Out) == (h.Method != "") && w.healthIDs[string(bytes.TrimSpace(h.ID))] {
					head += " " + st.Muted.Render("(health check)")
				}
				head += " " + st.Muted.Render("·")
			}
		}
		line := clip(head, w.width)
		if room := w.width - lipWidth(line) - 1; room > 0 {
			line += " " + st.Muted.Render(clip(termtext.Line(string(r.Data[:min(len(r.Data), 4*w.width)])), room))
		}
		if i == w.list.Cursor() && w.focused {
			line = st.Selected.Render(fit(stripStyles(line), w.width))
		}
		lines = append(lines, line)
	}
	return padLines(lines, w.width, w.height)
}

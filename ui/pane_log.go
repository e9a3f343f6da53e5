package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// logSize is how many log messages the pane keeps, newest.
const logSize = 2000

// logLine is one notifications/message, ready to draw: every string
// escaped.
type logLine struct {
	at     time.Time
	level  string
	logger string
	data   string
	// problem says what was wrong with the notification; related names
	// the request or task it came with, when the server said so.
	problem string
	related string
}

// newLogLine reads one notification's params.
func newLogLine(at time.Time, params json.RawMessage, size int) logLine {
	l := logLine{at: at}
	if params == nil && size > 0 {
		l.problem = fmt.Sprintf("params of %s not kept", english.Plural(size, "byte"))
		return l
	}
	e, err := mcp.ParseLogMessage(params)
	if err != nil {
		l.problem = termtext.Line(err.Error())
		return l
	}
	l.level, l.logger, l.problem = termtext.Line(e.Level), termtext.Line(e.Logger), e.Problem
	if e.RelatedTask != "" {
		l.related = "task " + termtext.Line(e.RelatedTask)
	}
	var s string
	if json.Unmarshal(e.Data, &s) == nil {
		l.data = termtext.Line(s)
	} else {
		var b bytes.Buffer
		if json.Compact(&b, e.Data) == nil {
			l.data = termtext.Line(b.String())
		} else {
			l.data = termtext.Line(string(e.Data))
		}
	}
	return l
}

// logPane shows the server's log messages (notifications/message),
// following the end unless scrolled back.
type logPane struct {
	tailPane[logLine]
	start time.Time
	// level is the level last set with logging/setLevel, "" before.
	level string
	// perRequest: the session speaks 2026-07-28, where the level travels
	// in each request's _meta and a server logs for no other request.
	perRequest bool
}

func newLogPane(c *common) *logPane {
	return &logPane{tailPane: tailPane[logLine]{c: c, size: logSize}}
}

// Reset forgets every message, for a new connection starting at start.
func (p *logPane) Reset(start time.Time) {
	p.reset()
	p.start, p.level, p.perRequest = start, "", false
}

// Add appends messages; dropped counts those a flood cost.
func (p *logPane) Add(lines []logLine, dropped int) { p.add(lines, dropped) }

// lineView renders one message: time, level, logger, what it came with,
// its data, and what was wrong with it.
func (p *logPane) lineView(l logLine) []string {
	st := p.c.Styles
	level := l.level
	if level == "" {
		level = "?"
	}
	style := st.Text
	switch r := mcp.LevelRank(l.level); {
	case r >= mcp.LevelRank("error"):
		style = st.StateFailed
	case r == mcp.LevelRank("warning"):
		style = st.BadgeWarn
	case r == mcp.LevelRank("debug"):
		style = st.Muted
	}
	text := st.Muted.Render(fmt.Sprintf("%7s", formatOffset(l.at.Sub(p.start)))) + " " + style.Render(fmt.Sprintf("%-7s", level))
	if l.logger != "" {
		text += " " + st.Key.Render(l.logger)
	}
	if l.related != "" {
		text += " " + st.Badge.Render(l.related)
	}
	text += " " + l.data
	if l.problem != "" {
		text += " " + st.BadgeWarn.Render("("+l.problem+")")
	}
	return wrapLines(text, p.width)
}

// View renders the pane.
func (p *logPane) View() string {
	st := p.c.Styles
	title := "SERVER LOG " + english.Plural(len(p.items)+p.dropped, "message")
	if p.level != "" {
		title += " · level " + p.level
		if p.perRequest {
			title += " (per request)"
		}
	}
	out := []string{st.paneTitleView(p.focused, title, p.width)}
	hint := ""
	if len(p.items) == 0 && p.perRequest && p.level == "" {
		hint = "no log messages: in protocol 2026-07-28 a server logs only about requests that carry a log level; " +
			p.c.Keys.Global.LogLevel.Help().Key + " sets one for the requests that follow"
	} else if len(p.items) == 0 {
		hint = "no log messages (notifications/message); " + p.c.Keys.Global.LogLevel.Help().Key + " sets the level"
	}
	// Wrapped, not cut: the empty pane has the room, and the key is at the end.
	if hint != "" {
		for _, l := range wrapLines(hint, p.width) {
			out = append(out, st.Muted.Render(l))
		}
	}
	if p.dropped > 0 {
		out = append(out, st.Muted.Render(clip(english.Plural(p.dropped, "older message")+" not kept", p.width)))
	}
	return p.view(out, p.lineView)
}

// formatOffset is a time since the connection started: "+1.25s".
func formatOffset(d time.Duration) string {
	return fmt.Sprintf("+%.2fs", d.Seconds())
}

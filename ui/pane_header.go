package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// connState is where the connection to the server is.
type connState int

const (
	connConnecting connState = iota
	connReady
	connClosing
	connClosed
)

// header is the top of the screen: who the server is, how we talk to it,
// whether the connection lives, and how many requests are in each state.
type header struct {
	c *common

	label     string
	transport string
	peer      session.PeerInfo
	state     connState
	// closedWhy is the reason the connection closed, already sanitized.
	closedWhy  string
	lastStderr string
	timeout    time.Duration
	cancelMode session.CancelMode
	// auth is the login state of a remote server, or nil.
	auth       func() string
	counts     [session.Cancelled + 1]int
	toolErrors int // of counts[Completed]: shown on their own
	width      int
	// declared is what mcpoke's initialize declared.
	declared json.RawMessage
	// health is the periodic ping's outcome: after the state, or in its
	// place while a ping goes unanswered.
	health *health
	// host names the host whose traffic an attached UI shows (its
	// clientInfo); attached says the UI watches a proxy and cannot
	// reconnect.
	host     string
	attached bool
}

func newHeader(c *common) *header { return &header{c: c, transport: "stdio"} }

// SetSize sets the width; the header's height follows its content.
func (h *header) SetSize(w, _ int) { h.width = w }

// Height is how many lines View takes.
func (h *header) Height() int {
	if h.state == connClosed {
		return 2
	}
	return 1
}

// View renders the header.
func (h *header) View() string {
	st := h.c.Styles
	sep := st.Muted.Render(" · ")
	var left []string
	left = append(left, st.App.Render("mcpoke"))
	nameAt := -1
	switch name := h.peer.ServerInfo.Name; {
	case h.attached:
		// Whose traffic this is: the host's, with the server it talks to.
		nameAt = len(left)
		host := "host ?"
		if h.host != "" {
			host = "host " + termtext.Line(h.host)
		}
		if name == "" {
			name = h.label
		}
		left = append(left, st.Strong.Render(host)+st.Muted.Render(" ⇄ ")+st.Strong.Render(termtext.Line(name)))
	case name != "":
		nameAt = len(left)
		s := termtext.Line(name)
		if v := h.peer.ServerInfo.Version; v != "" {
			s += " " + termtext.Line(v)
		}
		left = append(left, st.Strong.Render(s))
	case h.label != "":
		nameAt = len(left)
		left = append(left, st.Strong.Render(termtext.Line(h.label)))
	}
	eraAt, eraShort := -1, ""
	if h.peer.ProtocolVersion != "" {
		// The era says how requests are cancelled and whether a
		// handshake happened: modern (server/discover) or legacy.
		eraAt, eraShort = len(left), st.Muted.Render("MCP "+termtext.Line(h.peer.ProtocolVersion))
		left = append(left, st.Muted.Render("MCP "+termtext.Line(h.peer.ProtocolVersion)+" ("+eraLabel(h.peer)+")"))
	}
	left = append(left, st.Muted.Render(h.transport))
	healthAt, warnAt, warnShort := -1, -1, ""
	switch v, short := h.healthView(); {
	case short != "":
		// An unanswered ping takes the place of "ready", which it doubts,
		// and stays, short on a narrow screen.
		warnAt, warnShort = len(left), short
		left = append(left, v)
	case v != "":
		left = append(left, h.stateView())
		healthAt = len(left) // a round trip may go
		left = append(left, v)
	default:
		left = append(left, h.stateView())
	}
	if a := h.authView(); a != "" {
		left = append(left, a)
	}
	timeoutAt := -1
	if h.timeout > 0 {
		timeoutAt = len(left)
		left = append(left, st.Muted.Render("timeout "+formatDuration(h.timeout)))
	}
	if h.cancelMode != session.CancelNotify {
		// A probe, not how a client should cancel: never silent.
		left = append(left, st.BadgeWarn.Render("cancel "+h.cancelMode.String()))
	}
	// The capabilities go first on a narrow screen.
	l, r := h.fitLine(headerLeft{parts: left, nameAt: nameAt, timeoutAt: timeoutAt, healthAt: healthAt, warnAt: warnAt, warnShort: warnShort, eraAt: eraAt, eraShort: eraShort}, sep)
	line := l + strings.Repeat(" ", max(h.width-lipWidth(l)-lipWidth(r), 0)) + r
	if h.state != connClosed {
		return fit(line, h.width)
	}
	why := h.closedWhy
	if h.lastStderr != "" && !strings.Contains(why, h.lastStderr) {
		why += " · last stderr: " + h.lastStderr
	}
	second := st.ConnClosed.Render(why)
	if !h.attached {
		second += st.Muted.Render(" · ") +
			st.Help.ShortKey.Render(h.c.Keys.Global.Reconnect.Help().Key) + " " + st.Muted.Render("reconnect")
	}
	return fit(line, h.width) + "\n" + fit(second, h.width)
}

func (h *header) stateView() string {
	st := h.c.Styles
	switch h.state {
	case connConnecting:
		return st.ConnConnecting.Render("● connecting")
	case connReady:
		if h.attached {
			return st.ConnReady.Render("● attached")
		}
		return st.ConnReady.Render("● ready")
	case connClosing:
		return st.ConnConnecting.Render("● closing")
	default:
		return st.ConnClosed.Render("● closed")
	}
}

// countsView lists the requests in each state, leaving out zeros: in
// words when there is room, else finished states by their glyphs.
func (h *header) countsView(room int) string {
	st := h.c.Styles
	order := []session.State{session.Pending, session.Cancelling, session.Completed,
		session.Failed, session.TimedOut, session.Cancelled}
	var words, short []string
	// glyph is the short form; without one the words stay.
	add := func(n int, sty lipgloss.Style, said, glyph string) {
		if n == 0 {
			return
		}
		words = append(words, sty.Render(said))
		if glyph != "" {
			short = append(short, sty.Render(fmt.Sprintf("%s%d", glyph, n)))
		} else {
			short = append(short, sty.Render(said))
		}
	}
	for _, s := range order {
		n := h.counts[s]
		if s == session.Completed {
			// A tool error is no success: counted on its own, after them.
			n -= h.toolErrors
		}
		glyph := ""
		if s.Final() {
			glyph = stateGlyph(h.c, s)
		}
		add(n, stateStyle(st, s), fmt.Sprintf("%d %s", n, stateWord(s)), glyph)
		if s == session.Completed {
			add(h.toolErrors, st.StateToolError, english.Plural(h.toolErrors, toolErrorWord), "")
		}
	}
	if len(words) == 0 {
		return st.Muted.Render("no requests")
	}
	if full := strings.Join(words, st.Muted.Render(" · ")); lipWidth(full) <= room {
		return full
	}
	return strings.Join(short, " ")
}

// authView is the login state of a remote server that uses OAuth.
func (h *header) authView() string {
	if h.auth == nil {
		return ""
	}
	st := h.c.Styles
	switch a := h.auth(); a {
	case "":
		return ""
	case "logged in", "saved":
		return st.ConnReady.Render("auth " + a)
	case "failed":
		return st.ConnClosed.Render("auth failed")
	default:
		return st.ConnConnecting.Render("auth " + a)
	}
}

// eraLabel names the era, and says so when it is a fallback: the probe
// timed out (a silent legacy server, or a modern one too slow for it) or
// a late answer showed a modern server that a second probe could not
// reach.
func eraLabel(p session.PeerInfo) string {
	if !p.Era2026() && (strings.Contains(p.Negotiation, "after server/discover failed: request timed out") || strings.Contains(p.Negotiation, "a fallback:")) {
		return p.Era() + " fallback: server/discover timed out"
	}
	return p.Era()
}

package ui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// LoginMsg asks the person to log in to a remote server's authorization
// server (OAuth): the UI shows the login screen, with the address to open
// and a field to paste into. It opens no browser unasked.
type LoginMsg struct {
	// Host is where the browser is sent (the authorization URL's host).
	Host, URL string
	// Paste receives what the person pastes (the address the browser
	// ended at, or the code); the UI closes it when they give up.
	Paste chan<- string
}

// LoginDoneMsg ends the login screen; Err says why the login failed.
type LoginDoneMsg struct{ Err error }

// loginOpenedMsg is the outcome of opening the browser.
type loginOpenedMsg struct{ err error }

// loginScreen is the whole screen while a login waits for the person.
type loginScreen struct {
	c      *common
	active bool
	host   string
	url    string
	paste  chan<- string
	input  textinput.Model
	note   string
	noteOK bool
}

func newLoginScreen(c *common) *loginScreen {
	in := textinput.New()
	in.SetVirtualCursor(true)
	in.Prompt = "> "
	in.Placeholder = "http://127.0.0.1:…/callback?code=… or the code"
	s := in.Styles()
	s.Cursor.Blink = false
	in.SetStyles(s)
	return &loginScreen{c: c, input: in}
}

// Open shows the screen for msg.
func (l *loginScreen) Open(msg LoginMsg) tea.Cmd {
	l.active, l.host, l.url, l.paste = true, msg.Host, msg.URL, msg.Paste
	l.note, l.noteOK = "", false
	l.input.SetValue("")
	return l.input.Focus()
}

// Close hides the screen.
func (l *loginScreen) Close() {
	l.active, l.paste = false, nil
	l.input.Blur()
}

// Update handles a key or a paste while the screen is up; open starts
// the browser.
func (l *loginScreen) Update(msg tea.Msg, open func(string) error) tea.Cmd {
	switch msg := msg.(type) {
	case loginOpenedMsg:
		if msg.err != nil {
			l.note, l.noteOK = "no browser could be started ("+termtext.Line(msg.err.Error())+"): open the address yourself", false
		} else {
			l.note, l.noteOK = "the browser was asked to open the address", true
		}
		return nil
	case tea.KeyPressMsg:
		switch msg.String() {
		case "esc":
			if l.paste != nil {
				close(l.paste)
				l.paste = nil
			}
			l.note, l.noteOK = "login cancelled", false
			return nil
		case "enter":
			v := strings.TrimSpace(l.input.Value())
			if v == "" || l.paste == nil {
				return nil
			}
			select {
			case l.paste <- v:
				l.note, l.noteOK = "checking…", true
			default:
			}
			return nil
		case "ctrl+o":
			if open == nil {
				return nil
			}
			u := l.url
			return func() tea.Msg { return loginOpenedMsg{open(u)} }
		case "ctrl+y":
			l.note, l.noteOK = "address copied to the clipboard (OSC 52)", true
			return tea.SetClipboard(l.url)
		}
	}
	var cmd tea.Cmd
	l.input, cmd = l.input.Update(msg)
	return cmd
}

// View renders the screen at w×h.
func (l *loginScreen) View(w, h int) string {
	st := l.c.Styles
	l.input.SetWidth(max(w-3, 1))
	var lines []string
	lines = append(lines, fit(st.App.Render("mcpoke")+st.Muted.Render(" · ")+st.Strong.Render("log in"), w), "")
	lines = append(lines, wrapLines("The server asks for a login at "+st.Strong.Render(termtext.Line(l.host))+".", w)...)
	lines = append(lines, "", "Open this address in a browser:", "")
	// Hard-wrapped at the width, not at hyphens: ctrl+y copies it whole.
	lines = append(lines, strings.Split(ansi.Hardwrap(termtext.Line(l.url), w, true), "\n")...)
	lines = append(lines, "")
	lines = append(lines, wrapLines(st.Muted.Render("Once logged in, the browser comes back here by itself. When it is on another machine "+
		"(SSH, a container), it ends on an address that does not load: paste that address (or the code) below and press enter."), w)...)
	lines = append(lines, "", l.input.View(), "")
	if l.note != "" {
		s := st.StatusErr
		if l.noteOK {
			s = st.Status
		}
		lines = append(lines, fit(s.Render(l.note), w))
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	if len(lines) > h-1 {
		lines = lines[:max(h-1, 0)]
	}
	help := st.Help.ShortKey.Render("ctrl+o") + " " + st.Muted.Render("open in browser") + st.Muted.Render(" · ") +
		st.Help.ShortKey.Render("ctrl+y") + " " + st.Muted.Render("copy address") + st.Muted.Render(" · ") +
		st.Help.ShortKey.Render("enter") + " " + st.Muted.Render("use what is pasted") + st.Muted.Render(" · ") +
		st.Help.ShortKey.Render("esc") + " " + st.Muted.Render("cancel the login")
	lines = append(lines, help)
	for i := range lines {
		lines[i] = fit(lines[i], w)
	}
	return strings.Join(lines, "\n")
}

// loginUpdate routes the login's messages, and every key and paste while
// the login screen is up; ok is false for what it leaves to the rest.
func (m *Model) loginUpdate(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case LoginMsg:
		return m.login.Open(msg), true
	case LoginDoneMsg:
		m.login.Close()
		if msg.Err != nil {
			m.setStatus("login failed: "+termtext.Line(msg.Err.Error()), true)
		} else {
			m.setStatus("logged in", false)
		}
		return nil, true
	case loginOpenedMsg:
		return m.login.Update(msg, m.opts.OpenURL), true
	case tea.KeyPressMsg:
		if m.login.active && msg.String() != "ctrl+c" {
			return m.login.Update(msg, m.opts.OpenURL), true
		}
	case tea.PasteMsg:
		if m.login.active {
			return m.login.Update(msg, m.opts.OpenURL), true
		}
	}
	return nil, false
}

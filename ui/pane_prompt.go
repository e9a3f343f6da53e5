package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// promptKind says what the prompt asks for.
type promptKind int

const (
	promptReason promptKind = iota
	promptTimeout
	// promptRequestTimeout edits the timeout of the request seq.
	promptRequestTimeout
	promptFilterTools
	promptFilterRequests
	promptTranscript
	promptLogLevel
	promptSaveContents
	promptRoot
)

// prompt is the one-line input at the bottom of the screen, for a cancel
// reason, a timeout or a filter.
type prompt struct {
	c      *common
	kind   promptKind
	input  textinput.Model
	active bool
	// seq is the request a cancel reason is for; previous is the filter
	// to restore when a filter prompt is abandoned.
	seq      uint64
	previous string
	width    int
	// err says why the value was refused; the prompt stays open with it
	// until the next key.
	err string
}

// promptResult is what a key did to the prompt.
type promptResult int

const (
	promptTyping promptResult = iota
	promptAccepted
	promptAbandoned
)

func newPrompt(c *common) *prompt {
	in := textinput.New()
	in.SetVirtualCursor(true)
	s := in.Styles()
	s.Cursor.Blink = false // a steady cursor keeps frames deterministic
	in.SetStyles(s)
	return &prompt{c: c, input: in}
}

// SetSize sets the width; the prompt is one line.
func (p *prompt) SetSize(w, _ int) {
	p.width = w
	p.input.SetWidth(max(w-lipWidth(p.input.Prompt)-1, 1))
}

// Open starts asking.
func (p *prompt) Open(kind promptKind, label, value string) tea.Cmd {
	p.kind, p.active, p.err = kind, true, ""
	p.input.Prompt = label + " "
	p.input.SetValue(value)
	p.input.CursorEnd()
	p.SetSize(p.width, 1)
	return p.input.Focus()
}

// Refuse reopens the prompt on the value just accepted, with why it was
// refused: a typo is fixed where it was typed, not typed again.
func (p *prompt) Refuse(why string) tea.Cmd {
	p.active, p.err = true, why
	return p.input.Focus()
}

// Close stops asking.
func (p *prompt) Close() {
	p.active = false
	p.input.Blur()
}

// Value is what was typed.
func (p *prompt) Value() string { return p.input.Value() }

// Update handles the prompt's keys.
func (p *prompt) Update(msg tea.Msg) (promptResult, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, p.c.Keys.Prompt.Accept):
			p.Close()
			return promptAccepted, nil
		case key.Matches(k, p.c.Keys.Prompt.Cancel):
			p.Close()
			return promptAbandoned, nil
		}
	}
	if _, ok := msg.(tea.KeyPressMsg); ok {
		p.err = ""
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return promptTyping, cmd
}

// View renders the prompt line, and why the value was refused.
func (p *prompt) View() string {
	if p.err == "" {
		return fit(p.input.View(), p.width)
	}
	why := p.c.Styles.StatusErr.Render("✗ " + p.err)
	room := max(p.width-lipWidth(why)-1, p.width/2)
	in := p.input.View()
	if textWidth(strings.TrimRight(ansi.Strip(in), " ")) < room {
		// Only the input's padding goes: no "…" for text that is all there.
		in = ansi.Truncate(in, room, "")
	} else {
		in = clip(in, room)
	}
	return fit(in+" "+why, p.width)
}

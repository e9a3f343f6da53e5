package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// askPanel shows one question of the server's in place of the requests,
// and takes the person's answer: a reply to write for sampling, a form
// for elicitation, a URL to open. It says which server asks, as the spec
// asks a client to.
type askPanel struct {
	c      *common
	q      *mcp.Question
	server string

	reply textarea.Model // sampling
	form  *argEditor     // form elicitation
	err   string         // why the last key did nothing

	width, height int
}

// askAction is what a key in the panel asks the model to do.
type askAction int

const (
	askNone askAction = iota
	askAnswer
	askLater
	askOpenURL
)

// askAnswerOf is an answer the panel built: what it is, in words, and
// the result or error to send.
type askAnswerOf struct {
	what   string
	result []byte
	err    error
}

// replyHeight is how many lines the sampling reply editor takes.
const replyHeight = 5

func newAskPanel(c *common, q *mcp.Question, server string) *askPanel {
	p := &askPanel{c: c, q: q, server: server}
	switch {
	case q.Sampling != nil:
		p.reply = newJSONArea()
		p.reply.Placeholder = "write the reply the server's model would give"
	case q.Elicit != nil && q.Elicit.Mode == mcp.ElicitModeForm:
		p.form = newArgEditor(c)
		tool := mcp.Tool{Name: "elicitation", InputSchema: q.Elicit.RequestedSchema, Input: q.Elicit.Schema,
			Schema: q.Elicit.Compiled, SchemaErr: q.Elicit.SchemaErr}
		p.form.Open(tool)
		p.form.heading = "FORM · the fields the server asks for"
		if p.form.jsonMode {
			// Too complex for a form: the JSON starts from the defaults
			// (SEP-1034), not from nulls.
			p.form.json.SetValue(prettyArgs(q.Elicit.Defaults()))
		}
	}
	return p
}

// Focus puts the cursor where the person types.
func (p *askPanel) Focus() tea.Cmd {
	switch {
	case p.form != nil:
		if p.form.jsonMode {
			return p.form.json.Focus()
		}
		if len(p.form.fields) > 0 {
			return p.form.fields[p.form.focus].Focus()
		}
	case p.q.Sampling != nil:
		return p.reply.Focus()
	}
	return nil
}

// SetSize sets the panel's size.
func (p *askPanel) SetSize(w, h int) {
	p.width, p.height = w, h
	if p.q.Sampling != nil {
		p.reply.SetWidth(max(w-2, 10))
		p.reply.SetHeight(replyHeight)
	}
}

// Blink passes a cursor message to the input that has it.
func (p *askPanel) Blink(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case p.form != nil:
		_, _, cmd = p.form.Update(msg)
	case p.q.Sampling != nil:
		p.reply, cmd = p.reply.Update(msg)
	}
	return cmd
}

// Update handles a key: it answers, closes the panel for later, opens the
// URL, or edits.
func (p *askPanel) Update(k tea.KeyPressMsg) (askAction, askAnswerOf, tea.Cmd) {
	keys := p.c.Keys.Ask
	p.err = ""
	elicit := p.q.Elicit != nil
	switch {
	case key.Matches(k, keys.Later):
		return askLater, askAnswerOf{}, nil
	case key.Matches(k, keys.Decline):
		if elicit {
			return askAnswer, askAnswerOf{what: "declined", result: mcp.ElicitResult(mcp.ElicitDecline, nil)}, nil
		}
		return askAnswer, askAnswerOf{what: "declined", err: mcp.SamplingDeclined("declined in mcpoke")}, nil
	case elicit && key.Matches(k, keys.Dismiss):
		return askAnswer, askAnswerOf{what: "cancelled (no choice made)", result: mcp.ElicitResult(mcp.ElicitCancel, nil)}, nil
	}
	switch {
	case p.q.Sampling != nil:
		if key.Matches(k, keys.Send) {
			text := p.reply.Value()
			if strings.TrimSpace(text) == "" {
				p.err = "write a reply first, or " + keys.Decline.Help().Key + " to decline"
				return askNone, askAnswerOf{}, nil
			}
			return askAnswer, askAnswerOf{what: "replied", result: mcp.SamplingText(text, mcp.SamplingModel)}, nil
		}
		var cmd tea.Cmd
		p.reply, cmd = p.reply.Update(k)
		return askNone, askAnswerOf{}, cmd
	case p.form != nil:
		action, args, cmd := p.form.Update(k)
		if action == editorSend {
			return askAnswer, askAnswerOf{what: "accepted", result: mcp.ElicitResult(mcp.ElicitAccept, args)}, cmd
		}
		return askNone, askAnswerOf{}, cmd
	}
	// url mode
	switch {
	case key.Matches(k, keys.Open):
		if err := mcp.URLOpenable(p.q.Elicit.URL); err != nil {
			p.err = "not opened: " + err.Error()
			return askNone, askAnswerOf{}, nil
		}
		return askOpenURL, askAnswerOf{what: "accepted, URL opened", result: mcp.ElicitResult(mcp.ElicitAccept, nil)}, nil
	case key.Matches(k, keys.Accept):
		return askAnswer, askAnswerOf{what: "accepted (URL not opened by mcpoke)", result: mcp.ElicitResult(mcp.ElicitAccept, nil)}, nil
	}
	return askNone, askAnswerOf{}, nil
}

// View renders the panel: who asks what, then the input.
func (p *askPanel) View() string {
	st := p.c.Styles
	w := p.width
	q := p.q
	title := focusMark + "THE SERVER ASKS · " + askLabel(q)
	head := []string{st.Title.Render(clip(title, w))}
	who := "from " + st.Strong.Render(p.server) + st.Muted.Render(" · "+termtext.Line(q.Method))
	if q.TaskID != "" {
		who += st.Muted.Render(" · as task " + termtext.Line(q.TaskID) + " (its result waits for you)")
	}
	if q.InputKey != "" {
		who += st.Muted.Render(fmt.Sprintf(" · input %s of round %d: the answer goes in the retry", termtext.Quote(q.InputKey), q.Round))
	}
	head = append(head, clip(who, w))
	var body []string
	if e := q.Elicit; e != nil {
		body = append(body, wrapLines(st.Strong.Render(termtext.Block(orText(e.Message, "(no message)"))), w)...)
		if e.Mode == mcp.ElicitModeURL {
			for _, l := range urlLines(st, e) {
				body = append(body, wrapLines(l, w)...)
			}
			body = append(body, "", st.Muted.Render("Nothing is fetched until you open it; the page is the server's, not mcpoke's."))
		}
	} else {
		for _, l := range samplingLines(st, q.Sampling) {
			body = append(body, wrapLines(l, w)...)
		}
	}
	var foot []string
	if p.err != "" {
		foot = append(foot, st.FieldError.Render(clip("✗ "+p.err, w)))
	}
	var input []string
	switch {
	case q.Sampling != nil:
		input = append([]string{st.Key.Render("your reply") + st.Muted.Render(" (sent as the model's, model "+mcp.SamplingModel+")")},
			strings.Split(p.reply.View(), "\n")...)
	case p.form != nil:
		// The form takes what the message leaves, at least half.
		room := max(p.height-len(head)-len(foot)-min(len(body), p.height/2), 4)
		p.form.SetSize(w, room)
		input = strings.Split(p.form.View(), "\n")
	}
	room := max(p.height-len(head)-len(input)-len(foot), 1)
	if len(body) > room {
		body = append(body[:room-1], st.Muted.Render(clip("… more in the request's detail", w)))
	}
	lines := append(head, body...)
	lines = append(lines, input...)
	lines = append(lines, foot...)
	return padLines(lines, w, p.height)
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// help is the panel's own keys.
func (p *askPanel) help() help.KeyMap {
	return askHelp{k: p.c.Keys, q: p.q, json: p.form != nil && p.form.jsonMode}
}

// askHelp lists the panel's keys for the kind of question.
type askHelp struct {
	k    *keyMap
	q    *mcp.Question
	json bool
}

// ShortHelp implements help.KeyMap.
func (h askHelp) ShortHelp() []key.Binding {
	a := h.k.Ask
	switch {
	case h.q.Sampling != nil:
		return []key.Binding{a.Send, a.Decline, a.Later}
	case h.q.Elicit.Mode == mcp.ElicitModeURL && mcp.URLOpenable(h.q.Elicit.URL) != nil:
		return []key.Binding{a.Accept, a.Decline, a.Dismiss, a.Later}
	case h.q.Elicit.Mode == mcp.ElicitModeURL:
		return []key.Binding{a.Open, a.Accept, a.Decline, a.Dismiss, a.Later}
	}
	send := h.k.Editor.Send
	if h.json {
		send = h.k.Editor.SendJSON
	}
	send.SetHelp(send.Help().Key, "accept")
	return []key.Binding{send, h.k.Editor.Next, h.k.Editor.Choose, a.Decline, a.Dismiss, a.Later}
}

// FullHelp implements help.KeyMap.
func (h askHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

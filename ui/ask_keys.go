package ui

import (
	"errors"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/auth"
	"github.com/mcpoke/mcpoke/internal/mcp"
)

// panelKey handles a key while a question's panel is open.
func (m *Model) panelKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.asks.panel
	action, ans, cmd := p.Update(k)
	switch action {
	case askLater:
		// Put off, the question waits on its row, and the status says to
		// press enter there: the keys go to the requests.
		m.asks.panel = nil
		m.setFocus(focusRequests)
		m.table.SelectSeq(p.q.Ref.Seq)
		m.setStatus(askLabel(p.q)+" waits for you: press "+m.c.Keys.Nav.Open.Help().Key+" on its row to answer", false)
	case askAnswer:
		return tea.Batch(cmd, m.answer(p.q, ans.what, ans.result, ans.err))
	case askOpenURL:
		m.setStatus("opening "+askLabel(p.q)+"'s URL with $BROWSER…", false)
		return openURLCmd(m.gen, p.q, ans)
	}
	return cmd
}

// urlOpenedMsg: $BROWSER was started on a url elicitation's URL, or
// could not be.
type urlOpenedMsg struct {
	forGen
	q   *mcp.Question
	ans askAnswerOf
	err error
}

// urlOpened accepts the elicitation once its URL opened; if it did not,
// the panel stays, saying why.
func (m *Model) urlOpened(msg urlOpenedMsg) tea.Cmd {
	if msg.err != nil {
		if p := m.asks.panel; p != nil && p.q == msg.q {
			p.err = msg.err.Error()
		}
		m.setStatus("could not open the URL: "+msg.err.Error(), true)
		return nil
	}
	if m.asks.open[msg.q.Ref.Seq] == nil {
		return nil // withdrawn meanwhile: nothing to accept
	}
	return m.answer(msg.q, msg.ans.what, msg.ans.result, msg.ans.err)
}

// openURLCmd opens q's URL with $BROWSER, outside Update.
func openURLCmd(gen int, q *mcp.Question, ans askAnswerOf) tea.Cmd {
	url := q.Elicit.URL
	return func() tea.Msg {
		err := mcp.URLOpenable(url) // checked on the key too; never a browser for javascript: or file:
		if err == nil {
			err = openBrowser(url)
		}
		return urlOpenedMsg{forGen: forGen{gen}, q: q, ans: ans, err: err}
	}
}

// openBrowser starts $BROWSER (its first entry, when it lists several
// separated by colons) on url, without a shell: the URL is one argument,
// whatever it holds. The browser runs on its own; mcpoke never reads the
// page, as the spec asks.
func openBrowser(url string) error {
	b, _, _ := strings.Cut(os.Getenv("BROWSER"), ":")
	args := strings.Fields(b)
	if len(args) == 0 {
		return errors.New("$BROWSER is not set: set it, or open the URL yourself and press enter to accept")
	}
	// A command that fails at once is reported, not taken for opened.
	return auth.StartBrowser(append(args, url))
}

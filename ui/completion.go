package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// completionDelay is how long typing must pause before a completion is
// asked for (the spec: "Debounce rapid completion requests").
const completionDelay = 250 * time.Millisecond

// completionDueMsg: the debounce of the completion key.n ran out.
type completionDueMsg struct {
	forGen
	key completionKey
}

// editorChanged asks for a completion, after the debounce, when the
// focused field or its value changed.
func (m *Model) editorChanged(before fieldValue) tea.Cmd {
	after := m.editor.focusedValue()
	if !m.editing || !m.editor.target.complete || after.field == "" || after == before {
		return nil
	}
	m.features.compN++
	k := completionKey{field: after.field, value: after.value, n: m.features.compN}
	s := &m.editor.suggest
	if s.key.field != k.field {
		*s = suggestions{pick: -1}
	}
	s.key.field, s.waiting = k.field, true
	gen, delay := m.gen, m.opts.completionDelay
	if delay == 0 {
		delay = completionDelay
	}
	return tea.Tick(delay, func(time.Time) tea.Msg { return completionDueMsg{forGen: forGen{gen}, key: k} })
}

// completionDue sends the completion unless a newer one superseded it;
// one still in flight is cancelled, as its answer would be for a value
// no longer typed. Both go off Update: over HTTP a cancel is a POST.
func (m *Model) completionDue(msg completionDueMsg) tea.Cmd {
	if msg.key.n != m.features.compN || !m.editing || m.conn == nil {
		return nil
	}
	var cancel tea.Cmd
	if c := m.features.compInFlight; c != nil {
		m.features.compInFlight = nil
		cancel = supersedeCmd(m.conn.Session, c.Ref())
	}
	t := m.editor.target
	params := mcp.CompleteParams(t.ref(), msg.key.field, msg.key.value, m.editor.otherValues(msg.key.field))
	return tea.Batch(cancel, requestCmd(m.gen, m.conn.Session, "completion/complete", params, m.bounds(),
		purpose{kind: purposeComplete, completion: msg.key}, "completion/complete "+termtext.Line(msg.key.field)))
}

// supersedeCmd cancels a completion a newer one superseded. Nothing comes
// of a refusal: the completion ended by itself, and its answer is ignored
// as superseded either way.
func supersedeCmd(s *session.Session, ref session.Ref) tea.Cmd {
	return func() tea.Msg {
		_ = s.Request(ref).Cancel("superseded by a newer completion")
		return nil
	}
}

// completionDone shows the newest completion's values under its field.
func (m *Model) completionDone(msg requestDoneMsg) {
	if m.features.compInFlight != nil && m.features.compInFlight.Seq() == msg.seq {
		m.features.compInFlight = nil
	}
	s := &m.editor.suggest
	if msg.completion.n != m.features.compN || !m.editing || s.key.field != msg.completion.field {
		return // superseded, or the editor moved on
	}
	*s = suggestions{key: msg.completion, pick: -1}
	if msg.state != session.Completed {
		if msg.err != nil {
			s.err = msg.err.Error()
		}
		return
	}
	c, err := mcp.ReadCompleteResult(msg.result)
	if err != nil {
		s.err = err.Error()
		return
	}
	s.values, s.total, s.hasMore = c.Values, c.Total, c.HasMore
}

// suggestionKey puts a suggestion in the focused field.
func (m *Model) suggestionKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	keys := m.c.Keys.Editor
	n := 0
	switch {
	case key.Matches(k, keys.NextSuggestion):
		n = 1
	case key.Matches(k, keys.PrevSuggestion):
		n = -1
	default:
		return nil, false
	}
	m.editor.pickSuggestion(n)
	return nil, true
}

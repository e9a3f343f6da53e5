package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// Multi round-trip requests (2026-07-28): a request whose result is
// input_required "needs input". Its inputRequests are asked with the same
// panels and policies as 2025's server requests; once answered, the
// retry goes out as a new row, "round 2 of #N". Cancelling the row
// between rounds abandons it: nothing more is sent.

// roundSentMsg: a round's questions were answered and its retry sent, or
// the round ended without one.
type roundSentMsg struct {
	forGen
	seq  uint64 // the needs-input row
	next *session.Call
	err  error
}

// inputRequired starts answering the row seq when its result asks for
// input; nil for any other row.
func (m *Model) inputRequired(seq uint64) tea.Cmd {
	r := m.store.Get(seq)
	if r == nil || r.Incoming || r.Rounds != nil || r.Info == nil || r.State != session.Completed ||
		r.Info.ResultType != mcp.ResultInputRequired || m.conn == nil {
		return nil
	}
	// The row keeps a quote of the requestState; the retry echoes it
	// whole, from the session's record.
	info, ok := m.conn.Session.Request(r.Ref()).Info()
	if !ok {
		return nil
	}
	note := &rows.Rounds{}
	r.Rounds = note
	r.Touch()
	ir, _, err := mcp.ReadInputRequired(info.Result)
	for _, in := range ir.Requests {
		note.Inputs = append(note.Inputs, termtext.Line(in.Key)+" ("+termtext.Line(in.Method)+")")
	}
	first, n := r.Ref(), 1
	if info.Round.Retry() {
		first, n = info.Round.First, info.Round.N
	}
	switch {
	case !mcp.InputRequiredAllowed(info.Method):
		note.Stopped = mcp.ErrInputRequiredNotAllowed.Error()
	case err != nil:
		note.Stopped = err.Error()
	case n >= mcp.MaxRounds:
		note.Stopped = mcp.ErrTooManyRounds.Error()
	case m.asks.client == nil:
		note.Stopped = "this connection answers no questions"
	}
	if note.Stopped != "" {
		m.setStatus(r.Label()+": needs input, not retried: "+note.Stopped, true)
		return nil
	}
	ctx, abandon := context.WithCancel(context.Background())
	note.Waiting, note.Abandon = true, abandon
	m.setStatus(fmt.Sprintf("%s needs input (round %d): %d question(s); cancel it to abandon", r.Label(), n, len(ir.Requests)), false)
	opts := m.bounds().options()
	if info.Method == "tools/call" && m.conn.Session.Era2026() {
		for _, t := range m.tools.Tools() {
			if t.Name == info.Tool {
				opts.ParamHeaders, _ = mcp.CallParamHeaders(t, info.Params)
			}
		}
	}
	return roundCmd(m.gen, m.asks.client, m.conn.Session, ctx, first, n, info, ir, opts)
}

// roundCmd answers a round's questions (they reach the model as
// askedMsg) and sends the retry, unless abandoned first.
func roundCmd(gen int, cs *mcp.ClientSide, s *session.Session, ctx context.Context, first session.Ref, n int,
	info session.RequestInfo, ir mcp.InputRequired, opts session.CallOptions) tea.Cmd {
	return func() tea.Msg {
		msg := roundSentMsg{forGen: forGen{gen}, seq: info.Seq}
		var responses map[string]json.RawMessage
		if len(ir.Requests) > 0 {
			var err error
			if responses, _, err = cs.AnswerInputs(ctx, s, info.Ref(), n, ir); err != nil {
				msg.err = err
				return msg
			}
		}
		if ctx.Err() != nil {
			msg.err = mcp.ErrAbandoned
			return msg
		}
		// The retry is a request of its own: cancelled like any other.
		msg.next, msg.err = mcp.RetryRound(context.Background(), s, first, n+1, info, responses, ir.State, opts)
		if msg.err == nil {
			// As FollowRounds does: the state was echoed, let it go.
			s.Shed(info.Ref(), mcp.ElideState)
			s.Shed(msg.next.Ref(), mcp.ElideState)
		}
		return msg
	}
}

// roundSent shows the retry, or why there is none.
func (m *Model) roundSent(msg roundSentMsg) {
	r := m.store.Get(msg.seq)
	if r == nil || r.Rounds == nil {
		return
	}
	note := r.Rounds
	note.Waiting = false
	r.Touch()
	switch {
	case errors.Is(msg.err, mcp.ErrAbandoned):
		note.Abandoned = true
		m.setStatus(r.Label()+": abandoned between rounds; nothing more was sent", false)
	case msg.err != nil:
		note.Stopped = msg.err.Error()
		m.setStatus(r.Label()+": the next round was not sent: "+msg.err.Error(), true)
	case msg.next != nil:
		note.Next, note.NextID = msg.next.Seq(), msg.next.ID().String()
		m.setStatus(fmt.Sprintf("%s answered; round sent as request #%s", r.Label(), note.NextID), false)
		m.table.SelectSeq(note.Next)
	}
}

// abandonRounds abandons r between rounds, if it waits for input.
func (m *Model) abandonRounds(r *rows.Row) bool {
	if r == nil || r.Rounds == nil || !r.Rounds.Waiting {
		return false
	}
	r.Rounds.Abandon()
	m.setStatus(r.Label()+": abandoning: its questions are withdrawn and no retry is sent", false)
	return true
}

// roundBadges are a row's notes about its rounds: which round a retry is,
// and what a row that needs input asked and what became of it.
func roundBadges(r *rows.Row) []badge {
	var out []badge
	if r.Retry != nil {
		of := termtext.Line(r.Retry.First.ID.String())
		out = append(out, badge{text: fmt.Sprintf("round %d of #%s", r.Retry.N, of),
			short: []string{fmt.Sprintf("round %d of #%s", r.Retry.N, of), fmt.Sprintf("r%d", r.Retry.N)}})
	}
	n := r.Rounds
	if n == nil {
		return out
	}
	asked := "input"
	if len(n.Inputs) > 0 {
		asked = n.Inputs[0]
		if len(n.Inputs) > 1 {
			asked += fmt.Sprintf(" +%d", len(n.Inputs)-1)
		}
	}
	switch {
	case n.Waiting:
		out = append(out, badge{text: "asks " + asked, short: []string{"asks " + asked, "asks"}, warn: true})
	case n.Abandoned:
		out = append(out, badge{text: "abandoned between rounds", short: []string{"abandoned"}, warn: true})
	case n.Next != 0:
		out = append(out, badge{text: "answered → #" + termtext.Line(n.NextID), short: []string{"→ #" + termtext.Line(n.NextID)}})
	case n.Stopped != "":
		out = append(out, badge{text: "not retried: " + n.Stopped, short: []string{"not retried"}, warn: true})
	}
	return out
}

// retrySent reports whether the row seq's next round was already sent.
func (m *Model) retrySent(seq uint64) bool {
	r := m.store.Get(seq)
	return r != nil && r.Rounds != nil && r.Rounds.Next != 0
}

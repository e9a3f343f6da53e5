package ui

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// purposeKind says why the UI sent a request whose end it waits for:
// what to do with its outcome besides showing the row.
type purposeKind int

const (
	purposeRead purposeKind = iota
	purposeGetPrompt
	purposeSubscribe
	purposeUnsubscribe
	purposeComplete
	purposePing
	purposeSetLevel
)

// purpose is why a request was sent, with what its outcome is for.
type purpose struct {
	kind purposeKind
	// uri is the resource of a read or (un)subscribe; level the log
	// level asked for.
	uri   string
	level string
	// method is the liveness probe a ping sent (ping or server/discover).
	method string
	// completion is the field a completion is for (purposeComplete).
	completion completionKey
}

// requestSentMsg: a request with a purpose was written (or failed to
// be); call is its handle, which awaitCmd waits on.
type requestSentMsg struct {
	forGen
	purpose
	what string
	seq  uint64
	id   session.ID // the JSON-RPC id, which the table and the wire show
	call *session.Call
	err  error
}

// requestDoneMsg: a request with a purpose ended.
type requestDoneMsg struct {
	forGen
	purpose
	seq    uint64
	id     session.ID // the JSON-RPC id
	result json.RawMessage
	state  session.State
	err    error
	// ran is from sent to answered, on the session's clock.
	ran time.Duration
}

// requestCmd sends a request on behalf of a pane; the row appears through
// the session's events, and the outcome comes back as requestDoneMsg
// (see awaitCmd).
func requestCmd(gen int, s *session.Session, method string, params json.RawMessage, bounds callBounds, p purpose, what string) tea.Cmd {
	opts := bounds.options()
	if p.kind == purposeComplete || p.kind == purposePing {
		opts.NoProgressToken = true
	}
	return func() tea.Msg {
		c, err := s.Call(context.Background(), method, params, opts)
		msg := requestSentMsg{forGen: forGen{gen}, purpose: p, what: what, call: c, err: err}
		if c != nil {
			msg.seq, msg.id = c.Seq(), c.ID()
		}
		return msg
	}
}

// awaitCmd waits for the request's end. The session ends every request
// (a closed session fails those in flight), so the wait ends too.
func awaitCmd(gen int, s *session.Session, c *session.Call, p purpose) tea.Cmd {
	return func() tea.Msg {
		res, state, err := c.Result()
		msg := requestDoneMsg{forGen: forGen{gen}, purpose: p, seq: c.Seq(), id: c.ID(), result: res, state: state, err: err}
		if info, ok := s.Request(c.Ref()).Info(); ok && !info.Ended.IsZero() {
			msg.ran = info.Ended.Sub(info.Started)
		}
		return msg
	}
}

// entriesListedMsg: resources and templates, or prompts, were listed. A
// list the server did not declare arrives with mcp.ErrNotDeclared.
type entriesListedMsg struct {
	forGen
	prompts bool
	entries []entry
	// incomplete says a list was cut short; err that it failed.
	incomplete error
	err        error
}

// listResourcesCmd lists the resources and then the templates; a server
// without templates (-32601) just has none.
func listResourcesCmd(gen int, s *session.Session, force bool) tea.Cmd {
	return func() tea.Msg {
		ctx := context.Background()
		opts := mcp.ListOptions{Force: force}
		res, err := mcp.ListResources(ctx, s, opts)
		if err != nil {
			return entriesListedMsg{forGen: forGen{gen}, err: err}
		}
		incomplete := res.Incomplete
		tm, terr := mcp.ListResourceTemplates(ctx, s, opts)
		var rpc *session.RPCError
		if errors.As(terr, &rpc) && rpc.Code == session.CodeMethodNotFound {
			terr = nil
		}
		if incomplete == nil {
			incomplete = tm.Incomplete
		}
		if incomplete == nil {
			incomplete = terr
		}
		return entriesListedMsg{forGen: forGen{gen}, entries: resourceEntries(res.Resources, tm.Templates), incomplete: incomplete}
	}
}

// listPromptsCmd lists the prompts.
func listPromptsCmd(gen int, s *session.Session, force bool) tea.Cmd {
	return func() tea.Msg {
		list, err := mcp.ListPrompts(context.Background(), s, mcp.ListOptions{Force: force})
		return entriesListedMsg{forGen: forGen{gen}, prompts: true, entries: promptEntries(list.Prompts), incomplete: list.Incomplete, err: err}
	}
}

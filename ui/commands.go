package ui

import (
	"context"
	"encoding/json"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// The commands below are the only place the UI calls the session or
// Options.Connect: they run outside Update and report back with a message that
// names the connection generation and, where there is one, the request.

// connectCmd starts a server and subscribes to its session.
func connectCmd(gen int, connect func(context.Context) (*connect.Conn, error), interval time.Duration) tea.Cmd {
	return func() tea.Msg {
		conn, err := connect(context.Background())
		if err != nil {
			return connectedMsg{forGen: forGen{gen}, err: err}
		}
		feed := rows.SubscribeFeed(conn.Session, conn, interval)
		return connectedMsg{forGen: forGen{gen}, conn: conn, feed: feed}
	}
}

// initializeCmd runs the MCP handshake.
func initializeCmd(gen int, conn *connect.Conn) tea.Cmd {
	return func() tea.Msg {
		peer, err := conn.Initialize(context.Background())
		return initializedMsg{forGen: forGen{gen}, peer: peer, err: err}
	}
}

// listToolsCmd lists the tools; their input schemas are read and
// compiled as they are listed, so that opening the editor costs nothing.
// A server without the tools capability is sent nothing unless force: the
// error (mcp.ErrNotDeclared) says why, in the tools pane.
func listToolsCmd(gen int, s *session.Session, opts mcp.ListOptions) tea.Cmd {
	return func() tea.Msg {
		list, err := mcp.ListTools(context.Background(), s, opts)
		return toolsListedMsg{forGen: forGen{gen}, tools: list.Tools, incomplete: list.Incomplete, err: err, rejected: list.Rejected}
	}
}

// toolCallCmd sends tools/call for t, with its Mcp-Param headers in the
// modern era; the row appears through the session's events. When the
// server refuses it with HeaderMismatch, the follow-up lists the tools
// again and sends the call once more, under a new id.
func toolCallCmd(gen int, s *session.Session, t mcp.Tool, args json.RawMessage, bounds callBounds, list mcp.ListOptions) tea.Cmd {
	return func() tea.Msg {
		opts := bounds.options()
		c, err := mcp.StartToolCall(context.Background(), s, t, args, opts)
		msg := callSentMsg{forGen: forGen{gen}, what: "tools/call " + termtext.Line(t.Name), err: err}
		if c != nil {
			msg.seq, msg.id = c.Seq(), c.ID()
			msg.next = func() tea.Msg {
				_, state, err := c.Result()
				if state != session.Failed || !mcp.HeaderMismatch(err) {
					return nil
				}
				again, _, err := mcp.RetryAfterHeaderMismatch(context.Background(), s, t.Name, args, list, opts)
				retry := callSentMsg{forGen: forGen{gen}, what: "tools/call " + termtext.Line(t.Name) +
					" again: the server refused its headers (HeaderMismatch), the tools were listed again", err: err}
				if again != nil {
					retry.seq, retry.id = again.Seq(), again.ID()
				}
				return retry
			}
		}
		return msg
	}
}

// callCmd sends a request; the row appears through the session's events.
func callCmd(gen int, s *session.Session, method string, params json.RawMessage, bounds callBounds, what string) tea.Cmd {
	return func() tea.Msg {
		c, err := s.Call(context.Background(), method, params, bounds.options())
		msg := callSentMsg{forGen: forGen{gen}, what: what, err: err}
		if c != nil {
			msg.seq, msg.id = c.Seq(), c.ID()
		}
		return msg
	}
}

// cancelCmd asks the session to cancel one request; the session refuses,
// sending nothing, when the request cannot be cancelled.
func cancelCmd(gen int, s *session.Session, r *rows.Row, reason string) tea.Cmd {
	seq, ref, label := r.Seq, r.Ref(), r.Label()
	return func() tea.Msg {
		err := s.Request(ref).Cancel(reason)
		return cancelDoneMsg{forGen: forGen{gen}, seq: seq, label: label, reason: reason, err: err}
	}
}

// setTimeoutCmd gives the request r a new timeout of d from now.
func setTimeoutCmd(gen int, s *session.Session, r *rows.Row, d time.Duration) tea.Cmd {
	seq, ref, label := r.Seq, r.Ref(), r.Label()
	return func() tea.Msg {
		return timeoutSetMsg{forGen: forGen{gen}, seq: seq, label: label, timeout: d, err: s.Request(ref).SetTimeout(d)}
	}
}

// cancelAllCmd cancels every request in flight.
func cancelAllCmd(gen int, s *session.Session, reason string) tea.Cmd {
	return func() tea.Msg { return cancelAllDoneMsg{forGen: forGen{gen}, n: s.CancelAll(reason)} }
}

// cancelRowsCmd cancels the requests refs, the pending rows a filter
// shows; hidden counts the pending rows it leaves alone.
func cancelRowsCmd(gen int, s *session.Session, refs []session.Ref, reason, filter string, hidden int) tea.Cmd {
	return func() tea.Msg {
		n := 0
		for _, ref := range refs {
			if s.Request(ref).Cancel(reason) == nil {
				n++
			}
		}
		return cancelAllDoneMsg{forGen: forGen{gen}, n: n, filtered: true, filter: filter, hidden: hidden}
	}
}

// canCancelCmd asks the session whether a row can be cancelled.
func canCancelCmd(gen int, s *session.Session, ref session.Ref) tea.Cmd {
	return func() tea.Msg {
		return canCancelMsg{forGen: forGen{gen}, seq: ref.Seq, err: s.Request(ref).CanCancel()}
	}
}

// infoCmd fetches the full record of a request, outgoing or incoming.
func infoCmd(gen int, s *session.Session, ref session.Ref) tea.Cmd {
	return func() tea.Msg {
		info, ok := s.Request(ref).Info()
		if !ok {
			return nil
		}
		return infoMsg{forGen: forGen{gen}, seq: ref.Seq, info: info}
	}
}

// closeCmd cancels what is in flight with reason and closes the session,
// which shuts the server down, then reports done.
func closeCmd(conn *connect.Conn, feed *rows.Feed, reason string, done tea.Msg) tea.Cmd {
	return func() tea.Msg {
		if conn != nil {
			conn.Session.CancelAll(reason)
			_ = conn.Close()
		}
		if feed != nil {
			feed.Stop()
		}
		return done
	}
}

// tickCmd drives spinners and live elapsed times.
func tickCmd() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg{at: t} })
}

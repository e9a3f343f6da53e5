package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// Messages the UI sends itself. Results of asynchronous work carry the
// connection generation they belong to (forGen), and the request's Seq
// when they are about one request, so that a result arriving after a
// reconnect or for a row that scrolled away lands where it belongs or is
// dropped.

// forGen marks a message as the result of work started for one
// connection generation. Update drops every such message of another
// generation in one place, before it looks at the message.
type forGen struct{ gen int }

func (f forGen) generation() int { return f.gen }

// ofGeneration is a message that belongs to a connection generation.
type ofGeneration interface{ generation() int }

// connectedMsg: Options.Connect returned.
type connectedMsg struct {
	forGen
	conn *connect.Conn
	feed *rows.Feed
	err  error
	// client and asks are the connection's client side and what it hands
	// the UI, with Options.ConnectAnswering.
	client *mcp.ClientSide
	asks   *askFeed
}

// initializedMsg: the MCP handshake finished.
type initializedMsg struct {
	forGen
	peer session.PeerInfo
	err  error
}

// toolsListedMsg: tools/list answered. incomplete says the list was cut
// short (see mcp.ToolList.Incomplete).
type toolsListedMsg struct {
	forGen
	tools      []mcp.Tool
	incomplete error
	err        error
	// rejected are tools left out for invalid x-mcp-header marks.
	rejected []mcp.RejectedTool
	// relist: a listing again (relistTools), not the first.
	relist bool
}

// feedMsg: a coalesced batch of session events and wire records.
type feedMsg struct {
	forGen
	batch *rows.Batch
}

// callSentMsg: a request the user asked for was written (or failed to be).
type callSentMsg struct {
	forGen
	seq  uint64
	id   session.ID // the JSON-RPC id, which the table and the wire show
	what string
	err  error
	// next, when set, runs once the request was sent: it follows the
	// request (a retry after HeaderMismatch).
	next tea.Cmd
	// reissueOf is the Seq of the lost request this one re-issues by
	// itself; the selection stays where the user left it.
	reissueOf uint64
}

// cancelDoneMsg: Cancel returned for the request seq; err is the
// session's refusal, shown as is.
type cancelDoneMsg struct {
	forGen
	seq    uint64
	label  string
	reason string
	err    error
}

// timeoutSetMsg: SetTimeout returned for the request seq; err is the
// session's refusal.
type timeoutSetMsg struct {
	forGen
	seq     uint64
	label   string
	timeout time.Duration
	err     error
}

// cancelAllDoneMsg: CancelAll returned, or the cancels of the rows a
// filter shows (filtered): then hidden pending rows were left alone.
type cancelAllDoneMsg struct {
	forGen
	n        int
	filtered bool
	filter   string
	hidden   int
	// abandoned counts the rows that needed input, abandoned with them.
	abandoned int
}

// canCancelMsg: the session's answer to "can this row be cancelled?".
type canCancelMsg struct {
	forGen
	seq uint64
	err error
}

// infoMsg: a full RequestInfo fetched after a row changed state, for the
// detail pane (result, error, cancel times, late frames).
type infoMsg struct {
	forGen
	seq  uint64
	info session.RequestInfo
}

// closedForQuitMsg: pending requests were cancelled and the session
// closed; the program may exit.
type closedForQuitMsg struct{}

// tickMsg advances spinners and live elapsed times.
type tickMsg struct{ at time.Time }

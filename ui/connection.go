package ui

import (
	"context"

	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// Connection is a started server and its session, not yet initialized:
// the UI subscribes first so that it sees initialize like any request.
type Connection struct {
	Session *session.Session
	// Tap feeds the wire log; nil hides it.
	Tap *transport.Tap
	// Transport names the transport in the header, such as "stdio".
	Transport string
	// Label says which server this is, such as "demo (built-in)".
	Label string
	// Initialize runs the MCP handshake; nil means Session.Initialize
	// with Options.ClientInfo.
	Initialize func(ctx context.Context) (session.PeerInfo, error)
	// Close releases what Session.Close does not, if anything.
	Close func() error
}

// Connector starts a server and a session on it. The UI calls it at
// start and again for every reconnect, always from a tea.Cmd.
type Connector func(ctx context.Context) (*Connection, error)

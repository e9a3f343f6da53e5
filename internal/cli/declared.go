package cli

import (
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// declaredBothWays is what each side declared in initialize, as sent.
type declaredBothWays struct {
	Server json.RawMessage `json:"server"`
	Client json.RawMessage `json:"client"`
}

func declaredOf(srv *connect.Conn) declaredBothWays {
	server := srv.Peer().Capabilities
	if len(server) == 0 {
		server = json.RawMessage(`{}`)
	}
	return declaredBothWays{Server: server, Client: srv.Declared()}
}

// declaredLine says in two lines what each side declared: what the
// server offers, and what mcpoke will answer when the server asks.
func declaredLine(srv *connect.Conn) string {
	d := declaredOf(srv)
	mine := mcp.DescribeCapabilities(d.Client)
	if mine == "none" {
		mine += " (--root, --sample and --elicit declare roots, sampling and elicitation)"
	}
	return "declared  server: " + termtext.Line(mcp.DescribeCapabilities(d.Server)) + "\n          mcpoke: " + mine
}

package ui

import (
	"encoding/json"
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// declaredView says in few cells what each side declared in initialize:
// the server's capabilities ⇄ mcpoke's, "tools,logging ⇄
// roots,sampling,elicit,tasks"; "" before the server answered.
func declaredView(peer session.PeerInfo, mine json.RawMessage) string {
	if peer.ProtocolVersion == "" {
		return ""
	}
	names := func(raw json.RawMessage) string {
		n := mcp.CapabilityNames(raw)
		if len(n) == 0 {
			return "none"
		}
		for i, name := range n {
			n[i] = shortCapability(name)
		}
		return termtext.Line(strings.Join(n, ","))
	}
	return names(peer.Capabilities) + " ⇄ " + names(mine)
}

// shortCapability shortens the long capability names for the header.
func shortCapability(name string) string {
	switch name {
	case "elicitation":
		return "elicit"
	case "completions":
		return "complete"
	case "resources":
		return "res"
	}
	return name
}

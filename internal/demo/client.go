package demo

import (
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// noteClient keeps what the client declared in initialize: the demo asks
// only for what it may.
func (srv *server) noteClient(caps json.RawMessage) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	srv.client = mcp.ParseClientCapabilities(caps)
}

// clientFeatures is what the client declared it answers.
func (srv *server) clientFeatures() mcp.ClientFeatures {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.client
}

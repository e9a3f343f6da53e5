package ui

import (
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// Protocol violations reach the status line, and the wire log marks a
// frame that breaks a rule on its own.
func TestViolationsAreShown(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{
		Wire: []wire.Record{{At: testEpoch, Dir: wire.In, Kind: wire.KindFrame,
			Data: []byte(`{"jsonrpc":"1.0","id":9,"result":{}}`)}},
		Violations: 2,
		LastViolation: session.Violation{At: testEpoch, Kind: session.ViolationJSONRPCVersion,
			Detail: `jsonrpc is "1.0", not "2.0"`},
		Events: 2,
	}})
	d.waitScreen("2 protocol violations by the server", "jsonrpc_version")
	d.key("w")
	d.waitScreen("← ⚠")
}

// A server without the tools capability: the tools pane says why nothing
// was listed, not that tools/list failed, and the status how to list
// anyway (the mcp layer's error names no flag).
func TestToolsPaneSaysNotDeclared(t *testing.T) {
	d, _ := newTestModel(t, 150, 30)
	d.send(toolsListedMsg{forGen: forGen{d.m.gen}, err: &mcp.CapabilityError{Method: "tools/list", Capability: "tools"}})
	d.waitScreen("did not declare the tools", "mcpoke --force sends it anyway")
	if s := d.screen(); strings.Contains(s, "tools/list failed") {
		t.Errorf("the screen says tools/list failed, but nothing was sent:\n%s", s)
	}
}

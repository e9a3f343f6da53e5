package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/session"
)

// From 70 to 220 columns the header keeps the server, the version, the
// transport and the state whole (and the era's name from 80); what goes
// for want of room goes whole, the capabilities first, never cut
// mid-word.
func TestHeaderDegradesGracefully(t *testing.T) {
	h := newHeader(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	h.state, h.timeout = connReady, time.Minute
	h.peer = session.PeerInfo{ProtocolVersion: session.Era2026Version, ServerInfo: session.Implementation{Name: "mcpoke-demo", Version: "dev"},
		Capabilities: json.RawMessage(`{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{}}`)}
	h.declared = json.RawMessage(`{"roots":{},"sampling":{},"elicitation":{}}`)
	h.counts[session.Pending], h.counts[session.Completed], h.counts[session.Cancelled] = 1, 5, 1
	const all = "mcpoke-demo dev · MCP 2026-07-28 (modern) · stdio · ● ready"
	want := map[int][]string{
		80:  {"mcpoke-demo dev · MCP 2026-07-28 (modern) · stdio · ● ready   ", "1 pending ✓5 ⊘1"},
		100: {"mcpoke · " + all + "   ", "1 pending ✓5 ⊘1"},
		130: {"mcpoke · " + all + " · timeout 1m00s   ", "1 pending · 5 completed · 1 cancelled"},
		170: {all + " · timeout 1m00s · server tools,prompts,res,logging,complete   "},
		220: {"· tools,prompts,res,logging,complete ⇄ roots,sampling,elicit   "},
		70:  {"mcpoke-demo dev · MCP 2026-07-28 · stdio · ● ready", "1 pending ✓5 ⊘1"},
	}
	for w, subs := range want {
		h.SetSize(w, 1)
		line := ansi.Strip(h.View())
		if lipWidth(line) != w || strings.Contains(line, "…") {
			t.Errorf("at %d columns: %q", w, line)
		}
		for _, sub := range subs {
			if !strings.Contains(line, sub) {
				t.Errorf("at %d columns, no %q in %q", w, sub, line)
			}
		}
	}
}

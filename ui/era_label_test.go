package ui

import (
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// The header says when the era is a fallback from a probe that timed out
// (a modern server too slow for it may be behind), and not otherwise.
func TestEraLabelSaysFallback(t *testing.T) {
	for _, tc := range []struct {
		peer session.PeerInfo
		want string
	}{
		{session.PeerInfo{ProtocolVersion: "2026-07-28", Negotiation: "server/discover"}, "modern"},
		{session.PeerInfo{ProtocolVersion: "2025-11-25", Negotiation: "initialize, after server/discover failed: Method not found"}, "legacy"},
		{session.PeerInfo{ProtocolVersion: "2025-11-25", Negotiation: "initialize, after server/discover failed: request timed out: timeout after 3s"}, "legacy fallback: server/discover timed out"},
		{session.PeerInfo{ProtocolVersion: "2025-11-25", Negotiation: "initialize, after server/discover failed: request timed out: timeout after 3s; a fallback: the probe's late answer lists 2026-07-28, but server/discover again failed: x"}, "legacy fallback: server/discover timed out"},
	} {
		if got := eraLabel(tc.peer); got != tc.want {
			t.Errorf("eraLabel(%q) = %q, want %q", tc.peer.Negotiation, got, tc.want)
		}
	}
}

package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// A huge initialize result is parsed for what is needed and a bounded
// copy kept: the instructions' head with the full size, each huge
// capability replaced by a note of its size, its name kept.
func TestHugeInitializeResultKeptBounded(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	big := strings.Repeat("é", 2<<20) // 4 MB, two bytes a character
	result := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"experimental":{"x":"` + strings.Repeat("c", 1<<20) +
		`"}},"instructions":"` + big + `","serverInfo":{"name":"` + strings.Repeat("n", 5000) + `","version":"1"}}`
	peer, _, err := h.initialize(InitializeOptions{}, result)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []PeerInfo{peer, h.s.Peer()} {
		if len(p.Instructions) > MaxInstructionsKept+100 || !strings.Contains(p.Instructions, "of 4194304 bytes]") {
			t.Errorf("kept %d bytes of instructions, ending %q", len(p.Instructions), p.Instructions[max(0, len(p.Instructions)-60):])
		}
		if len(p.ServerInfo.Name) > MaxInfoFieldKept+100 {
			t.Errorf("kept a server name of %d bytes", len(p.ServerInfo.Name))
		}
		var caps map[string]json.RawMessage
		if err := json.Unmarshal(p.Capabilities, &caps); err != nil || string(caps["tools"]) != "{}" || len(p.Capabilities) > MaxCapabilityKept {
			t.Errorf("capabilities kept %d bytes (%v): %.100s", len(p.Capabilities), err, p.Capabilities)
		}
		if !strings.Contains(string(caps["experimental"]), `"mcpoke/omitted"`) {
			t.Errorf("the huge capability was not replaced by its size: %.80s", caps["experimental"])
		}
	}
	if got := clipKept("aé", 2); got != "a … [mcpoke kept 1 of 3 bytes]" {
		t.Errorf("clipKept cut a character: %q", got)
	}
}

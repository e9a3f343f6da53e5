package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds on what a session keeps of the server's initialize (or
// server/discover) result, for its whole life: a server may send 30 MB
// of instructions or capabilities, which every report, screen and
// transcript note would otherwise copy.
const (
	// MaxInstructionsKept is the head of the instructions kept.
	MaxInstructionsKept = 64 << 10
	// MaxCapabilityKept bounds each capability's value; a larger one is
	// replaced by a note of its size, its name (what CheckDeclared
	// reads) kept.
	MaxCapabilityKept = 16 << 10
	// MaxInfoFieldKept bounds serverInfo's name, title and version.
	MaxInfoFieldKept = 1 << 10
)

// bounded is p with its text fields and capabilities cut to the bounds,
// each cut saying the full size.
func (p PeerInfo) bounded() PeerInfo {
	p.Instructions = clipKept(p.Instructions, MaxInstructionsKept)
	p.ServerInfo.Name = clipKept(p.ServerInfo.Name, MaxInfoFieldKept)
	p.ServerInfo.Title = clipKept(p.ServerInfo.Title, MaxInfoFieldKept)
	p.ServerInfo.Version = clipKept(p.ServerInfo.Version, MaxInfoFieldKept)
	p.Capabilities = boundCapabilities(p.Capabilities)
	return p
}

// clipKept keeps the head of s, at most max bytes on a rune boundary,
// and says how long s was.
func clipKept(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n-- // not in the middle of a character
	}
	return strings.ToValidUTF8(s[:n], "") + fmt.Sprintf(" … [mcpoke kept %d of %d bytes]", n, len(s))
}

// boundCapabilities replaces each capability whose value is over
// MaxCapabilityKept with {"mcpoke/omitted": size}; small ones are kept
// as sent.
func boundCapabilities(raw json.RawMessage) json.RawMessage {
	if len(raw) <= MaxCapabilityKept {
		return raw
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil {
		return json.RawMessage(fmt.Sprintf(`{"mcpoke/omitted":%d}`, len(raw)))
	}
	for k, v := range caps {
		if len(v) > MaxCapabilityKept {
			caps[k] = json.RawMessage(fmt.Sprintf(`{"mcpoke/omitted":%d}`, len(v)))
		}
	}
	out, err := json.Marshal(caps)
	if err != nil || bytes.Equal(out, raw) {
		return raw
	}
	return out
}

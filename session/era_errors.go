package session

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Error codes 2026-07-28 defines (the -32020 to -32099 range it
// reserves).
const (
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)

// Explain says in words what an error code of 2026-07-28 means,
// with what its data adds; "" for other codes.
func (e *RPCError) Explain() string {
	switch e.Code {
	case CodeHeaderMismatch:
		return "HeaderMismatch, the HTTP headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) " +
			"did not match the request body, or one the server requires was missing"
	case CodeMissingClientCapability:
		var d struct {
			Required map[string]json.RawMessage `json:"requiredCapabilities"`
		}
		_ = json.Unmarshal(e.Data, &d)
		why := "MissingRequiredClientCapability, the server needs a client capability this request did not declare"
		if len(d.Required) > 0 {
			why += ": " + NameList(slices.Sorted(maps.Keys(d.Required)))
		}
		return why
	case CodeUnsupportedProtocolVersion:
		var d struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		_ = json.Unmarshal(e.Data, &d)
		why := "UnsupportedProtocolVersion, the server does not speak the version asked for"
		if d.Requested != "" {
			why = "UnsupportedProtocolVersion, the server does not speak " + clipName(d.Requested)
		}
		if len(d.Supported) > 0 {
			why += "; it supports " + NameList(d.Supported)
		}
		return why
	}
	return ""
}

// Bounds on the names a message lists from an error's data: a server
// may send any number of them, of any length.
const (
	maxNamesListed = 8
	maxNameRunes   = 64
)

// NameList joins names from a server for a message: the first few, each
// clipped, and how many more there are.
func NameList(names []string) string {
	shown := names[:min(len(names), maxNamesListed)]
	clipped := make([]string, len(shown))
	for i, n := range shown {
		clipped[i] = clipName(n)
	}
	s := strings.Join(clipped, ", ")
	if more := len(names) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// clipName cuts a name from a server to maxNameRunes runes.
func clipName(s string) string {
	if utf8.RuneCountInString(s) <= maxNameRunes {
		return s
	}
	return string([]rune(s)[:maxNameRunes]) + "…"
}

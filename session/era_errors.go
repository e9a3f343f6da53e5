package session

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Error codes the modern revision defines (the -32020 to -32099 range it
// reserves).
const (
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)

// Explain says in words what an error code of the modern revision means,
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
			names := slices.Sorted(maps.Keys(d.Required))
			why += ": " + strings.Join(names, ", ")
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
			why = "UnsupportedProtocolVersion, the server does not speak " + d.Requested
		}
		if len(d.Supported) > 0 {
			why += "; it supports " + strings.Join(d.Supported, ", ")
		}
		return why
	}
	return ""
}

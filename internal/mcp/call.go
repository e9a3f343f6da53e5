package mcp

import (
	"encoding/json"
	"fmt"
)

// CallToolParams are the params of tools/call: the tool's name and its
// arguments, a JSON object ({} when args is empty). It fails only when
// args is not JSON.
func CallToolParams(name string, args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	p, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{name, args})
	if err != nil {
		return nil, fmt.Errorf("arguments for %q are not JSON: %w", name, err)
	}
	return p, nil
}

// CallResult is a tools/call result (CallToolResult), read once for every
// caller: its content blocks and structuredContent as sent, and whether
// the tool itself reported an error.
type CallResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
}

// ReadCallResult reads a tools/call result; it fails when raw is not a
// JSON object of that shape.
func ReadCallResult(raw json.RawMessage) (CallResult, error) {
	var r CallResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return CallResult{}, fmt.Errorf("tools/call result: %w", err)
	}
	return r, nil
}

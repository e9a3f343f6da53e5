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

// CallResultIsError reads a tools/call result's isError alone, with the
// shape ReadCallResult checks, but without copying its content: a 30 MB
// result is not copied to learn one flag. It is false when raw is not a
// result of that shape.
func CallResultIsError(raw json.RawMessage) bool {
	var r struct {
		Content           []skipped `json:"content"`
		StructuredContent skipped   `json:"structuredContent"`
		IsError           bool      `json:"isError"`
	}
	return json.Unmarshal(raw, &r) == nil && r.IsError
}

// skipped is a JSON value checked by the decoder and then let go.
type skipped struct{}

// UnmarshalJSON keeps nothing of the value.
func (skipped) UnmarshalJSON([]byte) error { return nil }

// ReadCallResult reads a tools/call result; it fails when raw is not a
// JSON object of that shape.
func ReadCallResult(raw json.RawMessage) (CallResult, error) {
	var r CallResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return CallResult{}, fmt.Errorf("tools/call result: %w", err)
	}
	return r, nil
}

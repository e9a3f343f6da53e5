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

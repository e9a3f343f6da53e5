package mcp

import (
	"encoding/json"
	"fmt"
)

// Notifications a server sends about what it offers.
const (
	ToolsListChanged     = "notifications/tools/list_changed"
	ResourcesListChanged = "notifications/resources/list_changed"
	PromptsListChanged   = "notifications/prompts/list_changed"
	ResourceUpdated      = "notifications/resources/updated"
	LogMessage           = "notifications/message"
)

// ParseResourceUpdated reads notifications/resources/updated: the URI of
// the resource that changed.
func ParseResourceUpdated(params json.RawMessage) (string, error) {
	var p struct {
		URI *string `json:"uri"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.URI == nil {
		return "", fmt.Errorf("%s: params must be an object with a uri: %s", ResourceUpdated, clip(string(params), 80))
	}
	return *p.URI, nil
}

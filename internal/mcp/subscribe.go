package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
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

// SubscribeResource sends resources/subscribe for uri (protocol 2025-11-25
// and before; 2026-07-28 names resources in subscriptions/listen, see
// Listen), bounded by timeout.
func SubscribeResource(ctx context.Context, s *session.Session, uri string, timeout time.Duration) error {
	_, err := s.Do(ctx, "resources/subscribe", ReadResourceParams(uri), session.CallOptions{Timeout: timeout, NoProgressToken: true})
	return err
}

// UnsubscribeResource sends resources/unsubscribe for uri, bounded by
// timeout.
func UnsubscribeResource(ctx context.Context, s *session.Session, uri string, timeout time.Duration) error {
	_, err := s.Do(ctx, "resources/unsubscribe", ReadResourceParams(uri), session.CallOptions{Timeout: timeout, NoProgressToken: true})
	return err
}

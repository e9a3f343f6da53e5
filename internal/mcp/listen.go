package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpoke/mcpoke/session"
)

// ListenFilter is what a subscriptions/listen opts in to (the spec's
// SubscriptionFilter): a server sends no notification type the client did
// not ask for.
type ListenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// Empty reports whether the filter opts in to nothing.
func (f ListenFilter) Empty() bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0
}

// ListChangesOf opts in to every list change the server declared it
// notifies (listChanged in its capabilities).
func ListChangesOf(caps ServerCapabilities) ListenFilter {
	return ListenFilter{
		ToolsListChanged:     caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:   caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged: caps.Resources != nil && caps.Resources.ListChanged,
	}
}

// ErrListenNeedsModern means subscriptions/listen exists from protocol
// 2026-07-28 on; earlier servers notify on their own (the GET stream).
var ErrListenNeedsModern = errors.New("subscriptions/listen is part of protocol 2026-07-28; this session speaks an earlier one, whose server notifies without it")

// Listen opens a subscriptions/listen stream for what f opts in to and
// returns its handle: a request with no timeout that stays pending while
// the server delivers notifications tagged with its id (the session files
// them, see session.Listening). Cancelling it closes the subscription by
// the era's rule: its stream closed over HTTP, notifications/cancelled
// on stdio. It ends completed when the server ends it.
func Listen(ctx context.Context, s *session.Session, f ListenFilter) (*session.Call, error) {
	if !s.Era2026() {
		return nil, ErrListenNeedsModern
	}
	params := struct {
		Notifications ListenFilter `json:"notifications"`
	}{f}
	return s.Call(ctx, "subscriptions/listen", params, session.CallOptions{NoProgressToken: true})
}

// SubscribeFilter opts in to the list changes the server notifies and to
// notifications/resources/updated for uris: in 2026-07-28 resource
// subscriptions ride on subscriptions/listen, which replaced
// resources/subscribe, so subscribing to one more resource is opening a
// listen with the whole set.
func SubscribeFilter(caps ServerCapabilities, uris []string) ListenFilter {
	f := ListChangesOf(caps)
	f.ResourceSubscriptions = uris
	return f
}

// ParseListenAck reads notifications/subscriptions/acknowledged: the
// filter the server agreed to honour, a subset of what was asked.
func ParseListenAck(params []byte) (ListenFilter, error) {
	var p struct {
		Notifications *ListenFilter `json:"notifications"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Notifications == nil {
		return ListenFilter{}, fmt.Errorf("notifications/subscriptions/acknowledged: params must be an object with notifications: %s", clip(string(params), 80))
	}
	return *p.Notifications, nil
}

// Describe names what f opts in to, for a report: "toolsListChanged,
// resourceSubscriptions [a, b]", or "nothing". URIs are as sent: escape
// them before printing.
func (f ListenFilter) Describe() string {
	var parts []string
	for _, p := range []struct {
		on   bool
		name string
	}{{f.ToolsListChanged, "toolsListChanged"}, {f.PromptsListChanged, "promptsListChanged"}, {f.ResourcesListChanged, "resourcesListChanged"}} {
		if p.on {
			parts = append(parts, p.name)
		}
	}
	if len(f.ResourceSubscriptions) > 0 {
		parts = append(parts, "resourceSubscriptions ["+strings.Join(f.ResourceSubscriptions, ", ")+"]")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// Declined is what f asked for that ack, the server's acknowledgement,
// left out: notification types it will not send.
func (f ListenFilter) Declined(ack ListenFilter) ListenFilter {
	d := ListenFilter{
		ToolsListChanged:     f.ToolsListChanged && !ack.ToolsListChanged,
		PromptsListChanged:   f.PromptsListChanged && !ack.PromptsListChanged,
		ResourcesListChanged: f.ResourcesListChanged && !ack.ResourcesListChanged,
	}
	for _, uri := range f.ResourceSubscriptions {
		if !slices.Contains(ack.ResourceSubscriptions, uri) {
			d.ResourceSubscriptions = append(d.ResourceSubscriptions, uri)
		}
	}
	return d
}

// Wants reports whether a notification is one f opts in to. Before
// 2026-07-28 a server sends list changes unasked; a client that follows
// only some keeps those f names (and the updates of the resources it
// subscribed to with resources/subscribe).
func (f ListenFilter) Wants(method string, params json.RawMessage) bool {
	switch method {
	case ToolsListChanged:
		return f.ToolsListChanged
	case PromptsListChanged:
		return f.PromptsListChanged
	case ResourcesListChanged:
		return f.ResourcesListChanged
	case ResourceUpdated:
		uri, err := ParseResourceUpdated(params)
		return err == nil && slices.Contains(f.ResourceSubscriptions, uri)
	}
	return false
}

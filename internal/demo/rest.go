package demo

import "github.com/mcpoke/mcpoke/session"

// restHandlers answer what the demo offers besides tools: resources,
// prompts, completion and logging.
func (srv *server) restHandlers() map[string]session.Handler {
	return map[string]session.Handler{
		"resources/list":           srv.listResources,
		"resources/templates/list": srv.listTemplates,
		"resources/read":           srv.readResource,
		"resources/subscribe":      srv.subscribe,
		"resources/unsubscribe":    srv.unsubscribe,
		"prompts/list":             srv.listPrompts,
		"prompts/get":              srv.getPrompt,
		"completion/complete":      srv.complete,
		"logging/setLevel":         srv.setLevel,
	}
}

// withRestCapabilities adds to caps the capabilities restHandlers serve.
// The demo's lists never change, so it promises no list_changed.
func withRestCapabilities(caps map[string]any) map[string]any {
	caps["resources"] = map[string]any{"subscribe": true}
	caps["prompts"] = map[string]any{}
	caps["completions"] = map[string]any{}
	caps["logging"] = map[string]any{}
	return caps
}

package session

// internMethod returns the method name b (a JSON string's contents,
// without quotes or escapes) as a string, without allocating for the
// methods MCP defines: every request and notification carries one, and a
// peer sends the same few names again and again. Others are copied.
func internMethod(b []byte) string {
	if m, ok := knownMethods[string(b)]; ok { // string(b) here does not allocate
		return m
	}
	return string(b)
}

var knownMethods = func() map[string]string {
	m := map[string]string{}
	for _, name := range []string{
		"initialize", "notifications/initialized", "ping", "server/discover",
		"tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list",
		"resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
		"completion/complete", "logging/setLevel", "subscriptions/listen",
		"tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update",
		"sampling/createMessage", "elicitation/create", "roots/list",
		"notifications/progress", "notifications/cancelled", "notifications/message",
		"notifications/tasks/status", "notifications/elicitation/complete",
		"notifications/subscriptions/acknowledged", "notifications/resources/updated",
		"notifications/tools/list_changed", "notifications/resources/list_changed",
		"notifications/prompts/list_changed", "notifications/roots/list_changed",
	} {
		m[name] = name
	}
	return m
}()

package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
)

// RequestTarget names what a request is about, for a row or a report:
// the tool of tools/call, the prompt of prompts/get, the URI of
// resources/read and of subscriptions, the argument completion/complete
// completes, the level of logging/setLevel. "" for anything else.
func RequestTarget(method string, params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var p struct {
		Name     string `json:"name"`
		URI      string `json:"uri"`
		Level    string `json:"level"`
		Argument struct {
			Name string `json:"name"`
		} `json:"argument"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	switch method {
	case "tools/call", "prompts/get":
		return p.Name
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return p.URI
	case "completion/complete":
		return p.Argument.Name
	case "logging/setLevel":
		return p.Level
	}
	return ""
}

// PageCursor is the cursor a list request (tools/list, resources/list, ...)
// sent to ask for the page after the first; "" for a first page and for
// any other request. A list that follows nextCursor sends one request per
// page, and this tells them apart.
func PageCursor(method string, params json.RawMessage) string {
	if !strings.HasSuffix(method, "/list") || !bytes.Contains(params, []byte(`"cursor"`)) {
		return ""
	}
	var p struct {
		Cursor string `json:"cursor"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Cursor
}

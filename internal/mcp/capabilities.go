package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// ServerCapabilities are what a server declared in its initialize result.
// A nil pointer means the capability was not declared.
type ServerCapabilities struct {
	Tools     *ListChanged
	Prompts   *ListChanged
	Resources *ResourcesCapability
	// Logging and Completions have no fields of their own.
	Logging     bool
	Completions bool
	Tasks       *TasksCapability
	// Experimental holds non-standard capabilities by name, as sent.
	Experimental map[string]json.RawMessage
	// Extensions holds the extensions declared (2026-07-28), by name, as
	// sent: TasksExtension reads the tasks one.
	Extensions map[string]json.RawMessage
	// Raw is the capabilities object as sent.
	Raw json.RawMessage
}

// ListChanged is a capability whose only option is listChanged: the
// server notifies when its list changes.
type ListChanged struct {
	ListChanged bool `json:"listChanged"`
}

// ResourcesCapability is the resources capability.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

// TasksCapability is the tasks capability (2025-11-25).
type TasksCapability struct {
	// List and Cancel: the server supports tasks/list and tasks/cancel.
	List   bool
	Cancel bool
	// ToolsCall: tools/call may be task-augmented.
	ToolsCall bool
}

// ParseServerCapabilities reads the capabilities of an initialize
// result (session.PeerInfo.Capabilities). Absent or null capabilities are
// none; a value of the wrong shape is an error.
func ParseServerCapabilities(raw json.RawMessage) (ServerCapabilities, error) {
	c := ServerCapabilities{Raw: raw}
	if len(raw) == 0 || string(raw) == "null" {
		return c, nil
	}
	var f struct {
		Tools        *ListChanged               `json:"tools"`
		Prompts      *ListChanged               `json:"prompts"`
		Resources    *ResourcesCapability       `json:"resources"`
		Logging      json.RawMessage            `json:"logging"`
		Completions  json.RawMessage            `json:"completions"`
		Experimental map[string]json.RawMessage `json:"experimental"`
		Extensions   map[string]json.RawMessage `json:"extensions"`
		Tasks        *struct {
			List     json.RawMessage `json:"list"`
			Cancel   json.RawMessage `json:"cancel"`
			Requests struct {
				Tools struct {
					Call json.RawMessage `json:"call"`
				} `json:"tools"`
			} `json:"requests"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return c, fmt.Errorf("malformed server capabilities: %w", err)
	}
	c.Tools, c.Prompts, c.Resources = f.Tools, f.Prompts, f.Resources
	c.Logging, c.Completions = declared(f.Logging), declared(f.Completions)
	c.Experimental, c.Extensions = f.Experimental, f.Extensions
	if f.Tasks != nil {
		c.Tasks = &TasksCapability{List: declared(f.Tasks.List), Cancel: declared(f.Tasks.Cancel),
			ToolsCall: declared(f.Tasks.Requests.Tools.Call)}
	}
	return c, nil
}

// TasksExtension reports whether the server declared the tasks
// extension (io.modelcontextprotocol/tasks): it may answer any tools/call
// with a task, as it decides.
func (c ServerCapabilities) TasksExtension() bool {
	return declared(c.Extensions[session.ExtensionTasks])
}

// declared reports whether a capability is present: any value but null.
func declared(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

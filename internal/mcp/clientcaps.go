package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/mcpoke/mcpoke/session"
)

// ClientFeatures say which of the server's own requests mcpoke answers,
// and so which client capabilities initialize declares: only those it will
// really answer (MCP: a client that supports a feature MUST declare it,
// and a server MUST NOT send what was not declared). The TUI answers them
// all, since a person is there; a headless command only those a flag says
// how to answer (--root, --sample, --elicit).
type ClientFeatures struct {
	// Roots: roots/list is answered, and notifications/roots/list_changed
	// sent when the list changes.
	Roots bool
	// Sampling: sampling/createMessage is answered.
	Sampling bool
	// ElicitForm and ElicitURL: elicitation/create in form and url mode.
	ElicitForm, ElicitURL bool
	// Tasks: task-augmented sampling/createMessage and elicitation/create
	// (as far as those are declared) run as tasks mcpoke hosts, and
	// tasks/get, tasks/result, tasks/list and tasks/cancel are answered.
	Tasks bool
	// FollowTasks: mcpoke follows a task a server makes of a tools/call
	// (tasks/get, tasks/update, tasks/cancel), so a modern session
	// declares the tasks extension (io.modelcontextprotocol/tasks).
	FollowTasks bool
}

// ForVersion drops what protocol version (the one offered; "" means the
// latest) does not have, so that nothing undeclared is answered either:
// elicitation came in 2025-06-18, url mode and tasks in 2025-11-25.
func (f ClientFeatures) ForVersion(version string) ClientFeatures {
	if !versionAtLeast(version, "2025-06-18") {
		f.ElicitForm = false
	}
	if !versionAtLeast(version, "2025-11-25") {
		f.ElicitURL, f.Tasks = false, false
	}
	return f
}

// Elicitation reports whether any elicitation mode is answered.
func (f ClientFeatures) Elicitation() bool { return f.ElicitForm || f.ElicitURL }

// versionAtLeast compares protocol versions, which are dates.
func versionAtLeast(v, min string) bool { return v == "" || v >= min }

// Capabilities is the capabilities object of initialize for protocol
// version (the one offered; "" means the latest): a feature the version
// does not have is not declared. Elicitation came in 2025-06-18; its
// modes, url mode and tasks in 2025-11-25.
func (f ClientFeatures) Capabilities(version string) json.RawMessage {
	caps := map[string]any{}
	empty := struct{}{}
	if f.Roots {
		caps["roots"] = map[string]any{"listChanged": true}
	}
	if f.Sampling {
		caps["sampling"] = empty
	}
	modes := versionAtLeast(version, "2025-11-25")
	if f.Elicitation() && versionAtLeast(version, "2025-06-18") {
		switch {
		case !modes && f.ElicitForm:
			caps["elicitation"] = empty // form only, the one mode there is
		case modes:
			e := map[string]any{}
			if f.ElicitForm {
				e["form"] = empty
			}
			if f.ElicitURL {
				e["url"] = empty
			}
			caps["elicitation"] = e
		}
	}
	if session.IsEra2026(version) {
		// 2026-07-28 has no tasks capability: tasks are an extension.
		if f.FollowTasks {
			caps["extensions"] = map[string]any{session.ExtensionTasks: empty}
		}
	} else if f.Tasks && modes && (f.Sampling || f.Elicitation()) {
		requests := map[string]any{}
		if f.Sampling {
			requests["sampling"] = map[string]any{"createMessage": empty}
		}
		if f.Elicitation() {
			requests["elicitation"] = map[string]any{"create": empty}
		}
		caps["tasks"] = map[string]any{"list": empty, "cancel": empty, "requests": requests}
	}
	b, _ := json.Marshal(caps) // maps of maps: cannot fail
	return b
}

// ParseClientCapabilities reads the capabilities of a client's initialize
// params: what a server may ask it. An elicitation capability with
// neither mode is form only, as the spec says for older clients.
func ParseClientCapabilities(raw json.RawMessage) ClientFeatures {
	var c struct {
		Roots       json.RawMessage `json:"roots"`
		Sampling    json.RawMessage `json:"sampling"`
		Elicitation *struct {
			Form json.RawMessage `json:"form"`
			URL  json.RawMessage `json:"url"`
		} `json:"elicitation"`
		Extensions map[string]json.RawMessage `json:"extensions"`
		Tasks      *struct {
			Requests struct {
				Sampling struct {
					CreateMessage json.RawMessage `json:"createMessage"`
				} `json:"sampling"`
				Elicitation struct {
					Create json.RawMessage `json:"create"`
				} `json:"elicitation"`
			} `json:"requests"`
		} `json:"tasks"`
	}
	var f ClientFeatures
	if json.Unmarshal(raw, &c) != nil {
		return f
	}
	f.Roots, f.Sampling = declared(c.Roots), declared(c.Sampling)
	if e := c.Elicitation; e != nil {
		f.ElicitForm, f.ElicitURL = declared(e.Form), declared(e.URL)
		if !f.ElicitForm && !f.ElicitURL {
			f.ElicitForm = true
		}
	}
	f.FollowTasks = declared(c.Extensions[session.ExtensionTasks])
	if t := c.Tasks; t != nil {
		f.Tasks = declared(t.Requests.Sampling.CreateMessage) || declared(t.Requests.Elicitation.Create)
	}
	return f
}

// Describe names what a capabilities object declares, for people:
// "roots, sampling, elicitation (form, url), tasks", or "none".
func (f ClientFeatures) Describe(version string) string {
	return DescribeCapabilities(f.Capabilities(version))
}

// DescribeCapabilities names the capabilities an initialize declared
// (either side's), in the order the spec lists them, with the options
// that matter in brackets; "none" for an empty object.
func DescribeCapabilities(raw json.RawMessage) string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || len(caps) == 0 {
		return "none"
	}
	var out []string
	for _, name := range CapabilityNames(raw) {
		out = append(out, name+capabilityOptions(name, caps[name]))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// capabilityOrder is the order the spec lists capabilities in.
var capabilityOrder = []string{"roots", "sampling", "elicitation", "tools", "prompts", "resources", "logging", "completions", "tasks", "experimental"}

// capabilityOptions are the sub-capabilities worth naming, in brackets.
func capabilityOptions(name string, v json.RawMessage) string {
	var opts map[string]json.RawMessage
	if json.Unmarshal(v, &opts) != nil || len(opts) == 0 {
		return ""
	}
	var names []string
	switch name {
	case "elicitation":
		for _, m := range []string{"form", "url"} {
			if declared(opts[m]) {
				names = append(names, m)
			}
		}
	case "tasks":
		var t struct {
			Requests map[string]map[string]json.RawMessage `json:"requests"`
		}
		_ = json.Unmarshal(v, &t)
		for _, group := range []string{"tools", "sampling", "elicitation"} {
			for _, m := range slices.Sorted(maps.Keys(t.Requests[group])) {
				names = append(names, group+"/"+m)
			}
		}
	case "resources":
		for _, o := range []string{"subscribe", "listChanged"} {
			if string(opts[o]) == "true" {
				names = append(names, o)
			}
		}
	case "extensions":
		names = slices.Sorted(maps.Keys(opts))
	case "roots", "tools", "prompts":
		if string(opts["listChanged"]) == "true" {
			names = append(names, "listChanged")
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// CapabilityNames are the capabilities a capabilities object declares, by
// name only, in the order the spec lists them: for a short line.
func CapabilityNames(raw json.RawMessage) []string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil {
		return nil
	}
	var out []string
	for _, name := range capabilityOrder {
		if declared(caps[name]) {
			out = append(out, name)
		}
	}
	var rest []string
	for name, v := range caps {
		if !slices.Contains(capabilityOrder, name) && declared(v) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

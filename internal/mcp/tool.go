package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpoke/mcpoke/internal/toolschema"
)

// Tool is one entry of tools/list: the fields mcpoke reads, its input
// schema read once (Input) and compiled once (Schema), and the entry as
// the server sent it (Raw).
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the tool's inputSchema as sent; nil when absent.
	InputSchema json.RawMessage
	// Input is InputSchema read once: its properties in schema order.
	Input InputSchema
	// Schema validates arguments; nil when there is no inputSchema or it
	// does not compile, in which case SchemaErr says why.
	Schema    *toolschema.Schema
	SchemaErr error
	// Annotations are the server's hints about the tool. They are
	// untrusted, and a malformed one is left zero rather than refusing
	// the tool.
	Annotations Annotations
	// Execution says how the tool may be run (2025-11-25: tasks).
	Execution Execution
	// Hidden is the text the entry hides from a reader, such as tag
	// characters after a harmless description (see FindHidden).
	Hidden HiddenText
	// Raw is the entry exactly as the server sent it, with every field
	// mcpoke does not read (outputSchema, icons, _meta).
	Raw json.RawMessage
}

// Annotations are a tool's hints (ToolAnnotations in the spec). A nil
// hint was not given.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Execution is a tool's execution entry.
type Execution struct {
	// TaskSupport is "forbidden", "optional", "required", or empty when
	// not given (which means forbidden).
	TaskSupport string `json:"taskSupport,omitempty"`
}

// ErrMalformedTool means a tools/list entry is not an object with a name and
// string title and description.
var ErrMalformedTool = errors.New("malformed tool")

// ParseTool reads one tools/list entry. It fails only when the entry is
// not an object, has no name, or has fields of the wrong type; an
// inputSchema mcpoke cannot read or compile is kept, with Input.Err or
// SchemaErr saying why, since the tool can still be called.
func ParseTool(raw json.RawMessage) (Tool, error) {
	var fields struct {
		Name        *string         `json:"name"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations json.RawMessage `json:"annotations"`
		Execution   json.RawMessage `json:"execution"`
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return Tool{}, fmt.Errorf("%w: %s is not an object", ErrMalformedTool, clip(string(raw), 80))
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Tool{}, fmt.Errorf("%w %s: %v", ErrMalformedTool, clip(string(raw), 80), err)
	}
	if fields.Name == nil || *fields.Name == "" {
		return Tool{}, fmt.Errorf("%w %s: it has no name", ErrMalformedTool, clip(string(raw), 80))
	}
	t := Tool{
		Name:        *fields.Name,
		Title:       fields.Title,
		Description: fields.Description,
		Raw:         raw,
		Hidden:      FindHidden(raw),
	}
	if s := bytes.TrimSpace(fields.InputSchema); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
		t.InputSchema = fields.InputSchema
		if err := toolschema.CheckBounds(t.InputSchema); err != nil {
			// Not walked nor compiled: the tool is listed, its
			// arguments unchecked, and SchemaErr says why.
			t.SchemaErr = fmt.Errorf("inputSchema refused: %w", err)
		} else {
			t.Input = ReadInputSchema(t.InputSchema)
			// toolschema refuses every $ref outside the schema, so a
			// server's schema never reaches the network or the disk.
			t.Schema, t.SchemaErr = toolschema.Compile(t.InputSchema)
		}
	}
	if json.Unmarshal(fields.Annotations, &t.Annotations) != nil {
		t.Annotations = Annotations{}
	}
	if json.Unmarshal(fields.Execution, &t.Execution) != nil {
		t.Execution = Execution{}
	}
	return t, nil
}

// MarshalJSON writes the entry as the server sent it, so that a tool
// passed on (mcpoke tools --json, the demo's tools/list) is unchanged.
func (t Tool) MarshalJSON() ([]byte, error) {
	if len(t.Raw) > 0 {
		return t.Raw, nil
	}
	var exec *Execution
	if t.Execution != (Execution{}) {
		exec = &t.Execution
	}
	return json.Marshal(struct {
		Name        string          `json:"name"`
		Title       string          `json:"title,omitempty"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"inputSchema,omitempty"`
		Execution   *Execution      `json:"execution,omitempty"`
	}{t.Name, t.Title, t.Description, t.InputSchema, exec})
}

// clip shortens s to n bytes for messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

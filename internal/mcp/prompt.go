package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpoke/mcpoke/session"
)

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Hidden      HiddenText
	// Raw is the entry as sent.
	Raw json.RawMessage
}

// PromptArgument is one argument a prompt takes; every value is a string.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ErrMalformedPrompt means a prompts/list entry is not an object with a name
// and arguments of the right shape.
var ErrMalformedPrompt = errors.New("malformed prompt")

// ParsePrompt reads one prompts/list entry.
func ParsePrompt(raw json.RawMessage) (Prompt, error) {
	var f struct {
		Name        *string          `json:"name"`
		Title       string           `json:"title"`
		Description string           `json:"description"`
		Arguments   []PromptArgument `json:"arguments"`
	}
	if err := decodeEntry(raw, &f, ErrMalformedPrompt); err != nil {
		return Prompt{}, err
	}
	if f.Name == nil || *f.Name == "" {
		return Prompt{}, fmt.Errorf("%w %s: it has no name", ErrMalformedPrompt, clip(string(raw), 80))
	}
	for _, a := range f.Arguments {
		if a.Name == "" {
			return Prompt{}, fmt.Errorf("%w %s: an argument has no name", ErrMalformedPrompt, clip(string(raw), 80))
		}
	}
	return Prompt{Name: *f.Name, Title: f.Title, Description: f.Description, Arguments: f.Arguments,
		Hidden: FindHidden(raw), Raw: raw}, nil
}

// MarshalJSON writes the entry as the server sent it.
func (p Prompt) MarshalJSON() ([]byte, error) {
	if len(p.Raw) > 0 {
		return p.Raw, nil
	}
	return json.Marshal(struct {
		Name        string           `json:"name"`
		Title       string           `json:"title,omitempty"`
		Description string           `json:"description,omitempty"`
		Arguments   []PromptArgument `json:"arguments,omitempty"`
	}{p.Name, p.Title, p.Description, p.Arguments})
}

// PromptList is what ListPrompts read. Incomplete is as in ToolList.
type PromptList struct {
	// Count is how many prompts were read (StreamPrompts keeps none).
	Count      int
	Prompts    []Prompt
	Pages      int
	Incomplete error
}

// ListPrompts sends prompts/list, following nextCursor to the last page.
func ListPrompts(ctx context.Context, s *session.Session, opts ListOptions) (PromptList, error) {
	var kept []Prompt
	list, err := StreamPrompts(ctx, s, opts, func(page []Prompt, _ bool) { kept = append(kept, page...) })
	list.Prompts = kept
	return list, err
}

// StreamPrompts is ListPrompts handing each page's prompts to page as the
// page is read (more: the server says another page follows), and keeping
// none: the list's Count says how many there were.
func StreamPrompts(ctx context.Context, s *session.Session, opts ListOptions, page func(ps []Prompt, more bool)) (PromptList, error) {
	var list PromptList
	var err error
	list.Count, list.Incomplete, err = streamPages(ctx, s, "prompts/list", opts, &list.Pages, readPromptsPage, page)
	return list, err
}

// readPromptsPage reads one page of prompts/list, as many as keep
// allows, and its nextCursor.
func readPromptsPage(page json.RawMessage, keep *listBudget) ([]Prompt, string, error) {
	var got []Prompt
	next, err := func() (string, error) {
		var p struct {
			Prompts    []json.RawMessage `json:"prompts"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(page, &p); err != nil {
			return "", fmt.Errorf("malformed result: %w", err)
		}
		for _, raw := range p.Prompts {
			if !keep.take(raw) {
				break
			}
			pr, err := ParsePrompt(raw)
			if err != nil {
				return "", err
			}
			got = append(got, pr)
		}
		return p.NextCursor, nil
	}()
	return got, next, err
}

// ArgumentsSchema is a JSON Schema for the prompt's arguments: an object
// of strings, the required ones required. The UI builds its form from
// it, and arguments are checked against it before prompts/get is sent.
func (p Prompt) ArgumentsSchema() json.RawMessage {
	return stringsSchema(p.Arguments)
}

// stringsSchema is an object schema whose properties, in order, are
// strings.
func stringsSchema(args []PromptArgument) json.RawMessage {
	type prop struct {
		Type        string `json:"type"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
	}
	var b []byte
	b = append(b, `{"type":"object","properties":{`...)
	var required []string
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(a.Name)
		v, _ := json.Marshal(prop{"string", a.Title, a.Description})
		b = append(append(append(b, k...), ':'), v...)
		if a.Required && !slices.Contains(required, a.Name) {
			required = append(required, a.Name)
		}
	}
	// Arguments a prompt does not take are most likely typos.
	b = append(b, `},"additionalProperties":false`...)
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		b = append(append(b, `,"required":`...), r...)
	}
	return append(b, '}')
}

// ArgumentsTool is the prompt as a Tool whose inputSchema is
// ArgumentsSchema: the one form and validation code serves tools and
// prompts alike.
func (p Prompt) ArgumentsTool() Tool {
	return schemaTool(p.Name, p.Title, p.Description, p.ArgumentsSchema(), p.Hidden)
}

// schemaTool builds a Tool around schema, for a form.
func schemaTool(name, title, description string, schema json.RawMessage, hidden HiddenText) Tool {
	entry, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Title       string          `json:"title,omitempty"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}{name, title, description, schema})
	t, err := ParseTool(entry)
	if err != nil { // cannot happen: the entry is ours
		return Tool{Name: name}
	}
	t.Hidden = hidden
	return t
}

// ArgumentsTool is the template as a Tool whose inputSchema takes its
// variables as strings, for the same form as tools and prompts; a
// template whose variables could not be read takes none.
func (t ResourceTemplate) ArgumentsTool() Tool {
	args := make([]PromptArgument, len(t.Variables))
	for i, v := range t.Variables {
		args[i] = PromptArgument{Name: v, Required: true}
	}
	return schemaTool(t.URITemplate, t.Name, t.Description, stringsSchema(args), t.Hidden)
}

// GetPromptParams are the params of prompts/get: the prompt's name and
// its arguments, a JSON object of strings. It fails when args is not
// such an object.
func GetPromptParams(name string, args json.RawMessage) (json.RawMessage, error) {
	var vals map[string]string
	if len(args) > 0 {
		if err := json.Unmarshal(args, &vals); err != nil {
			return nil, fmt.Errorf("arguments for prompt %q must be a JSON object of strings: %w", name, err)
		}
	}
	return json.Marshal(struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments,omitempty"`
	}{name, vals})
}

// PromptResult is a prompts/get result.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a prompt: its role and one content
// block, as sent.
type PromptMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// ReadPromptResult reads a prompts/get result; it fails when raw is not
// an object with a messages array.
func ReadPromptResult(raw json.RawMessage) (PromptResult, error) {
	var r struct {
		Description string          `json:"description"`
		Messages    []PromptMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return PromptResult{}, fmt.Errorf("prompts/get result: %w", err)
	}
	if r.Messages == nil {
		return PromptResult{}, errors.New("prompts/get result: it has no messages")
	}
	return PromptResult{Description: r.Description, Messages: r.Messages}, nil
}

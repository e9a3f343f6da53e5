package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Resource is one entry of resources/list: the fields mcpoke reads and
// the entry as the server sent it (Raw).
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MimeType    string
	// Size is the size in bytes the server gave; nil when it gave none.
	Size *int64
	// Hidden is the text the entry hides from a reader (see FindHidden).
	Hidden HiddenText
	// Raw is the entry exactly as sent (annotations, icons, _meta).
	Raw json.RawMessage
}

// ResourceTemplate is one entry of resources/templates/list. Variables
// are the names its URI template takes, in order; VariablesErr says why
// the template could not be read (it can still be shown, not filled in).
type ResourceTemplate struct {
	URITemplate  string
	Name         string
	Title        string
	Description  string
	MimeType     string
	Variables    []string
	VariablesErr error
	Hidden       HiddenText
	Raw          json.RawMessage
}

// ErrMalformedResource means a resources/list or resources/templates/list
// entry is not an object with a uri (or uriTemplate) and fields of the
// right types.
var ErrMalformedResource = errors.New("malformed resource")

// ParseResource reads one resources/list entry.
func ParseResource(raw json.RawMessage) (Resource, error) {
	var f struct {
		URI         *string `json:"uri"`
		Name        string  `json:"name"`
		Title       string  `json:"title"`
		Description string  `json:"description"`
		MimeType    string  `json:"mimeType"`
		Size        *int64  `json:"size"`
	}
	if err := decodeEntry(raw, &f, ErrMalformedResource); err != nil {
		return Resource{}, err
	}
	if f.URI == nil || *f.URI == "" {
		return Resource{}, fmt.Errorf("%w %s: it has no uri", ErrMalformedResource, clip(string(raw), 80))
	}
	return Resource{URI: *f.URI, Name: f.Name, Title: f.Title, Description: f.Description, MimeType: f.MimeType,
		Size: f.Size, Hidden: FindHidden(raw), Raw: raw}, nil
}

// ParseResourceTemplate reads one resources/templates/list entry.
func ParseResourceTemplate(raw json.RawMessage) (ResourceTemplate, error) {
	var f struct {
		URITemplate *string `json:"uriTemplate"`
		Name        string  `json:"name"`
		Title       string  `json:"title"`
		Description string  `json:"description"`
		MimeType    string  `json:"mimeType"`
	}
	if err := decodeEntry(raw, &f, ErrMalformedResource); err != nil {
		return ResourceTemplate{}, err
	}
	if f.URITemplate == nil || *f.URITemplate == "" {
		return ResourceTemplate{}, fmt.Errorf("%w %s: it has no uriTemplate", ErrMalformedResource, clip(string(raw), 80))
	}
	t := ResourceTemplate{URITemplate: *f.URITemplate, Name: f.Name, Title: f.Title, Description: f.Description,
		MimeType: f.MimeType, Hidden: FindHidden(raw), Raw: raw}
	t.Variables, t.VariablesErr = TemplateVariables(t.URITemplate)
	return t, nil
}

// decodeEntry reads a list entry that must be a JSON object into f;
// errors wrap kind.
func decodeEntry(raw json.RawMessage, f any, kind error) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("%w: %s is not an object", kind, clip(string(raw), 80))
	}
	if err := json.Unmarshal(raw, f); err != nil {
		return fmt.Errorf("%w %s: %v", kind, clip(string(raw), 80), err)
	}
	return nil
}

// MarshalJSON writes the entry as the server sent it.
func (r Resource) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	return json.Marshal(struct {
		URI         string `json:"uri"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MimeType    string `json:"mimeType,omitempty"`
		Size        *int64 `json:"size,omitempty"`
	}{r.URI, r.Name, r.Title, r.Description, r.MimeType, r.Size})
}

// MarshalJSON writes the entry as the server sent it.
func (t ResourceTemplate) MarshalJSON() ([]byte, error) {
	if len(t.Raw) > 0 {
		return t.Raw, nil
	}
	return json.Marshal(struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MimeType    string `json:"mimeType,omitempty"`
	}{t.URITemplate, t.Name, t.Title, t.Description, t.MimeType})
}

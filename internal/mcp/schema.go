package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// InputSchema is a tool's inputSchema read once, for showing its
// arguments and building a form: the top-level properties in the order
// the schema lists them. Validation is toolschema's job (Tool.Schema).
type InputSchema struct {
	// Type is the schema's type: nil when absent, else one or more names.
	Type []string
	// Properties are the top-level properties in schema order.
	Properties []Property
	Required   []string
	// Composite: the schema combines others (oneOf, anyOf, allOf or $ref
	// at the top), so Properties do not tell the whole story.
	Composite bool
	// Err says why the schema could not be read (not an object, or
	// properties not an object); what could be read is kept.
	Err error
}

// Property is one top-level property of an inputSchema.
type Property struct {
	Name string
	// Type is nil when absent, else one or more type names.
	Type        []string
	Title       string
	Description string
	// Default, Const and Enum's values are raw JSON; nil when absent.
	Default  json.RawMessage
	Const    json.RawMessage
	Enum     []json.RawMessage
	Required bool
	// Nested: the property has properties, items, oneOf, anyOf, allOf or
	// $ref, which a one-line field cannot express.
	Nested bool
	// Raw is the property's schema as sent.
	Raw json.RawMessage
	// Err says why the property's schema could not be read (not an
	// object, or fields of the wrong type).
	Err error
}

// IsType reports whether p has exactly the one type name.
func (p Property) IsType(name string) bool { return len(p.Type) == 1 && p.Type[0] == name }

// IsObject reports whether the schema is for an object: type "object",
// or no type at all.
func (s InputSchema) IsObject() bool {
	return len(s.Type) == 0 || (len(s.Type) == 1 && s.Type[0] == "object")
}

// ReadInputSchema reads raw, a tool's inputSchema.
func ReadInputSchema(raw json.RawMessage) InputSchema {
	var s InputSchema
	var top struct {
		Type       json.RawMessage `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
		OneOf      json.RawMessage `json:"oneOf"`
		AnyOf      json.RawMessage `json:"anyOf"`
		AllOf      json.RawMessage `json:"allOf"`
		Ref        json.RawMessage `json:"$ref"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		s.Err = fmt.Errorf("inputSchema is not a JSON Schema object: %w", err)
		return s
	}
	s.Required = top.Required
	s.Composite = top.OneOf != nil || top.AnyOf != nil || top.AllOf != nil || top.Ref != nil
	var err error
	if s.Type, err = readType(top.Type); err != nil {
		s.Err = fmt.Errorf("inputSchema type: %w", err)
	}
	names, values, err := orderedObject(top.Properties)
	if err != nil {
		s.Err = fmt.Errorf("inputSchema properties: %w", err)
		return s
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for i, name := range names {
		p := readProperty(name, values[i])
		p.Required = required[name]
		s.Properties = append(s.Properties, p)
	}
	return s
}

func readProperty(name string, raw json.RawMessage) Property {
	p := Property{Name: name, Raw: raw}
	var f struct {
		Type        json.RawMessage   `json:"type"`
		Title       string            `json:"title"`
		Description string            `json:"description"`
		Default     json.RawMessage   `json:"default"`
		Const       json.RawMessage   `json:"const"`
		Enum        []json.RawMessage `json:"enum"`
		Properties  json.RawMessage   `json:"properties"`
		Items       json.RawMessage   `json:"items"`
		OneOf       json.RawMessage   `json:"oneOf"`
		AnyOf       json.RawMessage   `json:"anyOf"`
		AllOf       json.RawMessage   `json:"allOf"`
		Ref         json.RawMessage   `json:"$ref"`
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		p.Err = errors.New("not a JSON Schema object")
		return p
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		p.Err = err
		return p
	}
	p.Title, p.Description = f.Title, f.Description
	p.Default, p.Const, p.Enum = f.Default, f.Const, f.Enum
	p.Nested = f.Properties != nil || f.Items != nil || f.OneOf != nil || f.AnyOf != nil || f.AllOf != nil || f.Ref != nil
	var err error
	if p.Type, err = readType(f.Type); err != nil {
		p.Err = err
	}
	return p
}

// readType reads a "type" keyword: a name or an array of names.
func readType(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("type %s is neither a name nor a list of names", clip(string(raw), 40))
	}
	return many, nil
}

// orderedObject returns an object's keys in document order with their
// values; a Go map would lose the order the schema's author chose. A
// repeated key keeps its first place and its last value, as a decoder
// into a map would.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not an object")
	}
	var names []string
	var values []json.RawMessage
	at := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return names, values, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return names, values, err
		}
		name := t.(string)
		if i, ok := at[name]; ok {
			values[i] = v
			continue
		}
		at[name] = len(names)
		names = append(names, name)
		values = append(values, v)
	}
	return names, values, nil
}

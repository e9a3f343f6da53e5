package mcp

import (
	"bytes"
	"encoding/json"
)

// EnumOption is one value a choice offers, with the title to show for it
// ("" when the schema gives none).
type EnumOption struct {
	Value json.RawMessage
	Title string
}

// EnumOptions reads the choices of a property in the forms elicitation
// schemas use (and tools may): "enum" (with legacy "enumNames" titles),
// "oneOf" of {const, title} for one choice, and "type": "array" whose
// "items" are such an enum or "anyOf" of {const, title} for several
// (multi). ok is false when the property is no such choice, or its values
// are not scalars.
func EnumOptions(p Property) (opts []EnumOption, multi bool, ok bool) {
	if p.IsType("array") {
		var a struct {
			Items json.RawMessage `json:"items"`
		}
		if json.Unmarshal(p.Raw, &a) != nil || a.Items == nil {
			return nil, false, false
		}
		opts, ok = scalarChoices(a.Items)
		return opts, true, ok
	}
	opts, ok = scalarChoices(p.Raw)
	return opts, false, ok
}

// scalarChoices reads enum (+enumNames), oneOf or anyOf of consts.
func scalarChoices(raw json.RawMessage) ([]EnumOption, bool) {
	var s struct {
		Enum      []json.RawMessage `json:"enum"`
		EnumNames []string          `json:"enumNames"`
		OneOf     []json.RawMessage `json:"oneOf"`
		AnyOf     []json.RawMessage `json:"anyOf"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	var opts []EnumOption
	switch {
	case len(s.Enum) > 0:
		for i, v := range s.Enum {
			o := EnumOption{Value: v}
			if i < len(s.EnumNames) {
				o.Title = s.EnumNames[i]
			}
			opts = append(opts, o)
		}
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		for _, alt := range append(s.OneOf, s.AnyOf...) {
			var c struct {
				Const json.RawMessage `json:"const"`
				Title string          `json:"title"`
			}
			if json.Unmarshal(alt, &c) != nil || c.Const == nil {
				return nil, false
			}
			opts = append(opts, EnumOption{Value: c.Const, Title: c.Title})
		}
	default:
		return nil, false
	}
	for _, o := range opts {
		if t := bytes.TrimSpace(o.Value); len(t) == 0 || t[0] == '{' || t[0] == '[' {
			return nil, false
		}
	}
	return opts, true
}

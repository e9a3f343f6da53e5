package demo

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/session"
)

// flatCheck is a tool's inputSchema when it is flat: an object of typed
// properties, some required, maybe no others. It reads arguments as
// bytes, without decoding them to values and running the generic JSON
// Schema validator, and says only "certainly valid": anything it is not
// sure of (a problem, an escaped key, a repeated one, an integer written
// 1.0) is left to the validator, so its answers and its messages stay
// the validator's.
type flatCheck struct {
	props    []flatProp
	closed   bool   // additionalProperties false
	required uint64 // bit i: props[i] is required
}

// flatProp is one property: its name, its JSON type, and for a string
// the values it may take (none: any).
type flatProp struct {
	name string
	typ  string
	enum []string
}

// annotation reports whether a schema keyword only informs: validation
// never reads it.
func annotation(k string) bool {
	switch k {
	case "description", "title", "default", "examples", "$comment":
		return true
	}
	return strings.HasPrefix(k, "x-") // unknown keywords are ignored
}

// compileFlat returns the flatCheck of schema, or nil when schema is
// anything else (the validator alone then checks it).
func compileFlat(schema []byte) *flatCheck {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return nil
	}
	var props map[string]map[string]json.RawMessage
	var required []string
	f := &flatCheck{}
	for k, v := range top {
		var err error
		switch {
		case k == "type":
			if string(v) != `"object"` {
				return nil
			}
		case k == "properties":
			err = json.Unmarshal(v, &props)
		case k == "required":
			err = json.Unmarshal(v, &required)
		case k == "additionalProperties":
			if f.closed = string(v) == "false"; !f.closed && string(v) != "true" {
				return nil
			}
		case !annotation(k):
			return nil
		}
		if err != nil {
			return nil
		}
	}
	if len(props) > 64 {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, ok := flatProperty(name, props[name])
		if !ok {
			return nil
		}
		f.props = append(f.props, p)
	}
	for _, r := range slices.Compact(slices.Sorted(slices.Values(required))) {
		i := slices.IndexFunc(f.props, func(p flatProp) bool { return p.name == r })
		if i < 0 {
			return nil // required and never valid in a flat check
		}
		f.required |= 1 << i
	}
	return f
}

// flatProperty reads one property's schema: a type, maybe an enum of
// strings, annotations.
func flatProperty(name string, schema map[string]json.RawMessage) (flatProp, bool) {
	p := flatProp{name: name}
	if json.Unmarshal(schema["type"], &p.typ) != nil {
		return p, false
	}
	switch p.typ {
	case "string", "boolean", "number", "integer", "null":
	default:
		return p, false
	}
	for k, v := range schema {
		switch {
		case k == "type":
		case k == "enum" && p.typ == "string":
			if json.Unmarshal(v, &p.enum) != nil || len(p.enum) == 0 {
				return p, false
			}
		case !annotation(k):
			return p, false
		}
	}
	return p, true
}

// valid reports whether args (valid JSON, as every frame the session
// hands on is) is certainly valid; false means "ask the validator".
func (f *flatCheck) valid(args []byte) bool {
	m, ok := session.ReadMembers(args)
	if !ok {
		return false
	}
	var seen uint64
	for {
		key, escaped, v, ok := m.Next()
		if !ok {
			break
		}
		if escaped {
			return false
		}
		i := f.index(key)
		if i < 0 {
			// Another property, allowed unless closed; one that is not
			// UTF-8 might decode to a property's name.
			if f.closed || !utf8.Valid(key) {
				return false
			}
			continue
		}
		if seen&(1<<i) != 0 || !f.props[i].accepts(v) {
			return false // a repeated key: its last value counts, let the validator say
		}
		seen |= 1 << i
	}
	return m.Complete() && seen&f.required == f.required
}

func (f *flatCheck) index(key []byte) int {
	for i := range f.props {
		if f.props[i].name == string(key) {
			return i
		}
	}
	return -1
}

// accepts reports whether v, a valid JSON value, is certainly of the
// property's type and among its values.
func (p *flatProp) accepts(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	switch p.typ {
	case "string":
		if v[0] != '"' {
			return false
		}
		if p.enum == nil {
			return true
		}
		s := v[1 : len(v)-1]
		return bytes.IndexByte(s, '\\') < 0 && slices.Contains(p.enum, string(s))
	case "boolean":
		return v[0] == 't' || v[0] == 'f'
	case "null":
		return v[0] == 'n'
	case "number":
		return v[0] == '-' || '0' <= v[0] && v[0] <= '9'
	case "integer":
		return (v[0] == '-' || '0' <= v[0] && v[0] <= '9') && !bytes.ContainsAny(v, ".eE")
	}
	return false
}

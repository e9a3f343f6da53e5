package mcp

import (
	"encoding/json"
	"testing"
)

// A property is nested (the form cannot show it as one field) when it
// has properties, items, oneOf, anyOf, allOf or a $ref; a plain one is
// not.
func TestPropertyNested(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"type":"string"}`:                          false,
		`{"type":"object","properties":{}}`:          true,
		`{"type":"array","items":{"type":"string"}}`: true,
		`{"oneOf":[{"type":"string"}]}`:              true,
		`{"anyOf":[{"type":"string"}]}`:              true,
		`{"allOf":[{"type":"string"}]}`:              true,
		`{"$ref":"#/$defs/x"}`:                       true,
	} {
		if got := readProperty("p", json.RawMessage(raw)).Nested; got != want {
			t.Errorf("%s: Nested = %v; want %v", raw, got, want)
		}
	}
}

// A schema with no type, or type "object", is for an object.
func TestInputSchemaIsObject(t *testing.T) {
	for _, tc := range []struct {
		types []string
		want  bool
	}{{nil, true}, {[]string{"object"}, true}, {[]string{"string"}, false}, {[]string{"object", "null"}, false}} {
		if got := (InputSchema{Type: tc.types}).IsObject(); got != tc.want {
			t.Errorf("type %q: IsObject = %v; want %v", tc.types, got, tc.want)
		}
	}
}

// A property whose type is not a string or a list of strings carries
// the error; a well-typed one none.
func TestPropertyTypeError(t *testing.T) {
	if p := readProperty("p", json.RawMessage(`{"type":7}`)); p.Err == nil {
		t.Errorf("type 7: no error (%+v)", p)
	}
	if p := readProperty("p", json.RawMessage(`{"type":["string","null"]}`)); p.Err != nil || len(p.Type) != 2 {
		t.Errorf("type [string null]: %v, %q; want no error and both types", p.Err, p.Type)
	}
}

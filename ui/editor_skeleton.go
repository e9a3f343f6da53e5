package ui

import (
	"encoding/json"
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// maxSkeletonDepth bounds how deep a skeleton follows nested items, so a
// recursive or hostile schema cannot grow the editor's text.
const maxSkeletonDepth = 3

// propertyTemplate is the JSON a property starts with in the JSON editor:
// an array of objects opens with one item skeleton from the schema, so the
// user fills fields in instead of looking the shape up; anything else
// starts as null.
func propertyTemplate(p mcp.Property, indent string) string {
	if sk, ok := arraySkeleton(p.Raw, indent, 0); ok {
		return sk
	}
	return "null"
}

// arraySkeleton renders [ {item skeleton} ] for an array schema whose
// items are an object with properties.
func arraySkeleton(raw json.RawMessage, indent string, depth int) (string, bool) {
	var s struct {
		Items json.RawMessage `json:"items"`
	}
	if depth >= maxSkeletonDepth || json.Unmarshal(raw, &s) != nil || s.Items == nil {
		return "", false
	}
	item := mcp.ReadInputSchema(s.Items)
	if item.Err != nil || !item.IsObject() || len(item.Properties) == 0 {
		return "", false
	}
	inner := indent + "    "
	var b strings.Builder
	b.WriteString("[\n" + indent + "  {\n")
	for i, p := range item.Properties {
		q, _ := json.Marshal(p.Name)
		b.WriteString(inner + string(q) + ": " + leafSkeleton(p, inner, depth+1))
		if i < len(item.Properties)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "  }\n" + indent + "]")
	return b.String(), true
}

// leafSkeleton is an item field's starting value: its default, else an
// empty value of its type, so the skeleton reads as the shape to fill.
func leafSkeleton(p mcp.Property, indent string, depth int) string {
	switch {
	case p.Default != nil:
		return string(compact(p.Default))
	case p.IsType("string"):
		return `""`
	case p.IsType("number"), p.IsType("integer"):
		return "0"
	case p.IsType("boolean"):
		return "false"
	case p.IsType("array"):
		if sk, ok := arraySkeleton(p.Raw, indent, depth); ok {
			return sk
		}
		return "[]"
	case p.IsType("object"):
		return "{}"
	}
	return "null"
}

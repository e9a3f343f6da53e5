package ui

import (
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// Every enum form of SEP-1330 is a form field: one choice, with titles
// where the schema gives them, or several.
func TestFormBuildsEveryEnumForm(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{
		"untitledSingle":{"type":"string","enum":["option1","option2"]},
		"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"}],"default":"value2"},
		"legacyEnum":{"type":"string","enum":["opt1","opt2"],"enumNames":["Option One","Option Two"],"default":"opt1"},
		"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]},"default":["option3"]},
		"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"}]}}}}`)
	fields, ok := buildForm(mcp.Tool{Name: "f", InputSchema: raw, Input: mcp.ReadInputSchema(raw)})
	if !ok || len(fields) != 5 {
		t.Fatalf("form %v, %d fields", ok, len(fields))
	}
	kinds := []fieldKind{fieldEnum, fieldEnum, fieldEnum, fieldMulti, fieldMulti}
	for i, f := range fields {
		if f.kind != kinds[i] {
			t.Errorf("%s: kind %s", f.name, fieldKindNames[f.kind])
		}
	}
	if got := fields[1].choiceText(); got != "Second Option" {
		t.Errorf("titled default shows %q", got)
	}
	if got := fields[2].choiceText(); got != "Option One" {
		t.Errorf("legacy titled default shows %q", got)
	}
	mark := func(s string) string { return "<" + s + ">" }
	if got := fields[3].multiText(true, mark); got != "<[ ] option1>  [ ] option2  [x] option3" {
		t.Errorf("multi %q", got)
	}
	fields[4].moveMulti(1)
	fields[4].toggleMulti()
	if got := fields[4].multiText(false, mark); got != "[ ] First Choice  [x] Second Choice" {
		t.Errorf("titled multi %q", got)
	}
	if v, ok := fields[4].value(); !ok || string(v) != `["value2"]` {
		t.Errorf("value %s %v", v, ok)
	}
	fields[4].toggleMulti()
	if _, ok := fields[4].value(); ok {
		t.Error("an optional multi with nothing picked is sent")
	}
	if !fields[3].setValue(json.RawMessage(`["option1","option2"]`)) || fields[3].setValue(json.RawMessage(`["nope"]`)) {
		t.Error("setValue of a multi")
	}
}

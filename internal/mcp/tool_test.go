package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestReadInputSchemaKeepsSchemaOrder(t *testing.T) {
	// Neither alphabetical nor the order of required: the author's order.
	raw := `{"type":"object","properties":{
		"zeta":{"type":"string","description":"last letter","default":"z"},
		"alpha":{"type":["integer","null"]},
		"mode":{"enum":["fast","slow"]},
		"opts":{"type":"object","properties":{}}},
		"required":["mode","zeta"]}`
	s := ReadInputSchema(json.RawMessage(raw))
	if s.Err != nil || !s.IsObject() || s.Composite {
		t.Fatalf("Err %v, object %v, composite %v", s.Err, s.IsObject(), s.Composite)
	}
	var got []string
	for _, p := range s.Properties {
		got = append(got, p.Name)
	}
	if strings.Join(got, ",") != "zeta,alpha,mode,opts" {
		t.Fatalf("properties in order %v; want zeta,alpha,mode,opts", got)
	}
	zeta, alpha, mode, opts := s.Properties[0], s.Properties[1], s.Properties[2], s.Properties[3]
	if !zeta.Required || !zeta.IsType("string") || zeta.Description != "last letter" || string(zeta.Default) != `"z"` {
		t.Errorf("zeta = %+v", zeta)
	}
	if alpha.Required || strings.Join(alpha.Type, "|") != "integer|null" {
		t.Errorf("alpha = %+v", alpha)
	}
	if !mode.Required || len(mode.Enum) != 2 || mode.Type != nil {
		t.Errorf("mode = %+v", mode)
	}
	if !opts.Nested {
		t.Errorf("opts is not marked Nested")
	}
}

func TestReadInputSchemaRepeatedKeyKeepsLastValue(t *testing.T) {
	s := ReadInputSchema(json.RawMessage(`{"properties":{"a":{"type":"string"},"b":{},"a":{"type":"number"}}}`))
	if len(s.Properties) != 2 || s.Properties[0].Name != "a" || !s.Properties[0].IsType("number") {
		t.Errorf("properties %+v; want a (number), b", s.Properties)
	}
}

func TestReadInputSchemaOddities(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`[1]`, "not a JSON Schema object"},
		{`{"properties":[]}`, "properties: not an object"},
		{`{"type":5}`, "neither a name nor a list"},
	} {
		if s := ReadInputSchema(json.RawMessage(tc.raw)); s.Err == nil || !strings.Contains(s.Err.Error(), tc.want) {
			t.Errorf("%s: Err = %v; want %q", tc.raw, s.Err, tc.want)
		}
	}
	s := ReadInputSchema(json.RawMessage(`{"anyOf":[{}],"properties":{"x":true}}`))
	if !s.Composite || len(s.Properties) != 1 || s.Properties[0].Err == nil {
		t.Errorf("composite %v, properties %+v; want composite, x unreadable", s.Composite, s.Properties)
	}
}

func TestParseToolKeepsRawAndCompilesOnce(t *testing.T) {
	raw := json.RawMessage(`{"name":"echo","title":"Echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},` +
		`"annotations":{"readOnlyHint":true},"execution":{"taskSupport":"optional"},"icons":[]}`)
	tool, err := ParseTool(raw)
	if err != nil {
		t.Fatal(err)
	}
	if tool.Schema == nil || tool.SchemaErr != nil {
		t.Fatalf("schema not compiled: %v", tool.SchemaErr)
	}
	if err := tool.Schema.Validate([]byte(`{}`)); err == nil {
		t.Error("compiled schema accepts {} without the required text")
	}
	if tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint || tool.Execution.TaskSupport != "optional" {
		t.Errorf("annotations %+v, execution %+v", tool.Annotations, tool.Execution)
	}
	out, _ := json.Marshal(tool)
	if string(out) != string(raw) {
		t.Errorf("marshals as %s; want the entry as sent", out)
	}
}

func TestParseToolToleratesBadSchemaAndHints(t *testing.T) {
	tool, err := ParseTool(json.RawMessage(`{"name":"x","inputSchema":{"$ref":"https://example.com/s.json"},"annotations":{"readOnlyHint":"yes"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tool.Schema != nil || tool.SchemaErr == nil {
		t.Errorf("a schema with a remote $ref compiled: %v", tool.SchemaErr)
	}
	if tool.Annotations.ReadOnlyHint != nil {
		t.Errorf("a malformed hint was read: %v", *tool.Annotations.ReadOnlyHint)
	}
	if none, _ := ParseTool(json.RawMessage(`{"name":"y"}`)); none.Schema != nil || none.SchemaErr != nil || none.InputSchema != nil {
		t.Errorf("a tool without inputSchema got %+v", none)
	}
}

func TestCallToolParams(t *testing.T) {
	p, err := CallToolParams("echo", nil)
	if err != nil || string(p) != `{"name":"echo","arguments":{}}` {
		t.Errorf("got %s, %v", p, err)
	}
	p, err = CallToolParams("echo", json.RawMessage(` {"text": "hi"} `))
	if err != nil || string(p) != `{"name":"echo","arguments":{"text":"hi"}}` {
		t.Errorf("got %s, %v", p, err)
	}
	if _, err := CallToolParams("echo", json.RawMessage(`{`)); err == nil {
		t.Error("arguments that are not JSON were accepted")
	}
}

func TestParseServerCapabilities(t *testing.T) {
	c, err := ParseServerCapabilities(json.RawMessage(`{"tools":{"listChanged":true},"logging":{},` +
		`"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}},"experimental":{"x":{"a":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Tools == nil || !c.Tools.ListChanged || c.Prompts != nil || c.Resources != nil || !c.Logging || c.Completions {
		t.Errorf("got %+v", c)
	}
	if c.Tasks == nil || !c.Tasks.Cancel || c.Tasks.List || !c.Tasks.ToolsCall || string(c.Experimental["x"]) != `{"a":1}` {
		t.Errorf("tasks %+v, experimental %v", c.Tasks, c.Experimental)
	}
	if _, err := ParseServerCapabilities(json.RawMessage(`{"tools":true}`)); err == nil {
		t.Error("tools: true was accepted")
	}
}

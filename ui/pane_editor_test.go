package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

const richSchema = `{
  "type": "object",
  "properties": {
    "name":  {"type": "string", "description": "who to greet"},
    "count": {"type": "integer", "default": 3, "minimum": 1},
    "ratio": {"type": "number"},
    "loud":  {"type": "boolean"},
    "mode":  {"enum": ["calm", "wild"], "default": "calm"}
  },
  "required": ["name"]
}`

// openEditor opens an editor on a tool with schema.
func openEditor(t *testing.T, schema string) *argEditor {
	t.Helper()
	c := &common{Styles: newStyles(true), Keys: defaultKeyMap()}
	e := newArgEditor(c)
	e.SetSize(70, 30)
	entry, _ := json.Marshal(map[string]any{"name": "greet", "description": "Greets.", "inputSchema": json.RawMessage(schema)})
	tool, err := mcp.ParseTool(entry)
	if err != nil {
		t.Fatal(err)
	}
	if tool.SchemaErr != nil {
		t.Fatal(tool.SchemaErr)
	}
	e.Open(tool)
	return e
}

func (e *argEditor) keys(ks ...string) (editorAction, json.RawMessage) {
	var action editorAction
	var args json.RawMessage
	for _, k := range ks {
		action, args, _ = e.Update(keyMsg(k))
	}
	return action, args
}

func (e *argEditor) typeText(s string) {
	for _, r := range s {
		e.Update(keyMsg(string(r)))
	}
}

func (e *argEditor) screen() string { return ansi.Strip(e.View()) }

func TestEditorBuildsFormFromSchema(t *testing.T) {
	e := openEditor(t, richSchema)
	if e.jsonMode {
		t.Fatal("a simple schema opened the JSON editor")
	}
	s := e.screen()
	for _, want := range []string{"CALL greet", "(form)", "name* string", "who to greet", "count integer", "[3",
		"ratio number", "loud boolean", "‹ unset ›", "mode one of 2", "‹ calm ›"} {
		if !strings.Contains(s, want) {
			t.Errorf("form lacks %q:\n%s", want, s)
		}
	}
}

func TestEditorSendsTypedArguments(t *testing.T) {
	e := openEditor(t, richSchema)
	e.typeText("Ada")
	e.keys("tab", "ctrl+u")
	e.typeText("7")
	e.keys("tab")
	e.typeText("0.5")
	e.keys("tab", "space", "space") // unset → false → true
	e.keys("tab", "right")          // calm → wild
	action, args := e.keys("enter")
	if action != editorSend {
		t.Fatalf("enter did not send:\n%s", e.screen())
	}
	if got, want := string(args), `{"name":"Ada","count":7,"ratio":0.5,"loud":true,"mode":"wild"}`; got != want {
		t.Errorf("args %s, want %s", got, want)
	}
}

func TestEditorShowsErrorsInlineAndSendsNothing(t *testing.T) {
	e := openEditor(t, richSchema)
	e.keys("tab", "ctrl+u")
	e.typeText("seven")
	if action, _ := e.keys("enter"); action == editorSend {
		t.Fatal("sent an integer field holding letters")
	}
	if s := e.screen(); !strings.Contains(s, "✗ not an integer") {
		t.Errorf("no inline parse error:\n%s", s)
	}

	e.keys("ctrl+u")
	e.typeText("0")
	if action, _ := e.keys("enter"); action == editorSend {
		t.Fatal("sent arguments that break the schema")
	}
	s := e.screen()
	if !strings.Contains(s, "✗ required") {
		t.Errorf("the missing required name has no error:\n%s", s)
	}
	if !strings.Contains(s, "✗ minimum: got 0, want 1") {
		t.Errorf("the schema's minimum has no error at its field:\n%s", s)
	}
}

func TestEditorSwitchesToJSONAndBack(t *testing.T) {
	e := openEditor(t, richSchema)
	e.typeText("Ada")
	e.keys("ctrl+t")
	if !e.jsonMode {
		t.Fatal("ctrl+t did not switch to JSON")
	}
	if got := e.json.Value(); !strings.Contains(got, `"name": "Ada"`) || !strings.Contains(got, `"count": 3`) {
		t.Errorf("the JSON editor did not get the form's values:\n%s", got)
	}
	e.json.SetValue(`{"name": "Bob", "count": 2}`)
	e.keys("ctrl+t")
	if e.jsonMode {
		t.Fatalf("could not go back to the form: %v", e.errs)
	}
	if got := e.fields[0].input.Value(); got != "Bob" {
		t.Errorf("name is %q after the round trip", got)
	}
	e.keys("ctrl+t")
	e.json.SetValue(`{"name": "Bob", "extra": 1}`)
	e.keys("ctrl+t")
	if !e.jsonMode || !strings.Contains(e.screen(), "the form has no field extra") {
		t.Errorf("an unknown key should keep the JSON editor:\n%s", e.screen())
	}
}

func TestEditorJSONModeValidatesAndSends(t *testing.T) {
	e := openEditor(t, richSchema)
	e.keys("ctrl+t")
	e.json.SetValue(`{"name": 1`)
	if action, _ := e.keys("ctrl+s"); action == editorSend {
		t.Fatal("sent invalid JSON")
	}
	if s := e.screen(); !strings.Contains(s, "invalid JSON") && !strings.Contains(s, "arguments must be a JSON object") {
		t.Errorf("no JSON error:\n%s", s)
	}
	e.json.SetValue(`{"name": 1}`)
	e.keys("ctrl+s")
	if s := e.screen(); !strings.Contains(s, "name: got number, want string") {
		t.Errorf("no schema error in JSON mode:\n%s", s)
	}
	e.json.SetValue(`{"name": "Ada"}`)
	if action, args := e.keys("ctrl+s"); action != editorSend || string(args) != `{"name":"Ada"}` {
		t.Errorf("ctrl+s gave %v %s", action, args)
	}
}

func TestEditorComplexSchemaOpensJSON(t *testing.T) {
	e := openEditor(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`)
	if !e.jsonMode {
		t.Fatal("an array property got a form")
	}
	if got := e.json.Value(); !strings.Contains(got, `"tags": null`) {
		t.Errorf("the JSON template lacks the property:\n%s", got)
	}
	e.keys("ctrl+t")
	if !strings.Contains(e.screen(), "too complex for a form") {
		t.Errorf("switching to a form should be refused:\n%s", e.screen())
	}
}

func TestEditorEscCloses(t *testing.T) {
	e := openEditor(t, richSchema)
	if action, _ := e.keys("esc"); action != editorClose {
		t.Errorf("esc gave %v", action)
	}
}

func TestCallFromEditorReachesServer(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.m.tools.Select("echo")
	d.key("enter")
	d.key("enter")
	d.waitScreen("✗ required") // text is required and empty
	d.typeText("hi there")
	d.key("enter")
	d.waitScreen("hi there", "✓ completed", "[text] hi there")
	_ = tc
}

func TestEditorJSONErrorClearsWhenFixed(t *testing.T) {
	e := openEditor(t, richSchema)
	e.keys("ctrl+t")
	e.json.SetValue(`{"name": "Ada"`)
	e.keys("ctrl+s")
	if !strings.Contains(e.screen(), "invalid JSON") {
		t.Fatalf("no JSON error:\n%s", e.screen())
	}
	e.typeText("}") // the object is whole now: the error goes as it is fixed
	if s := e.screen(); strings.Contains(s, "✗") {
		t.Errorf("a fixed error stays:\n%s", s)
	}
}

func TestEditorFooterShowsTheRealSendKey(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.m.tools.Select("echo")
	d.key("enter")
	d.waitScreen("enter send")
	d.key("ctrl+t")
	d.waitScreen("ctrl+s send", "ctrl+f send unchecked")
	if strings.Contains(d.screen(), "enter send") {
		t.Errorf("the JSON editor's footer says enter sends:\n%s", d.screen())
	}
}

func TestEditorSendsArgumentsThatBreakTheSchemaAfterAWarning(t *testing.T) {
	e := openEditor(t, richSchema)
	e.keys("ctrl+t")
	e.json.SetValue(`{"name": 1, "count": -5}`)
	if action, _ := e.keys("ctrl+f"); action == editorSend {
		t.Fatal("ctrl+f sent without a warning")
	}
	if s := e.screen(); !strings.Contains(s, "⚠ these break the schema: ctrl+f again sends them as they are") {
		t.Errorf("no one-line warning:\n%s", s)
	}
	action, args := e.keys("ctrl+f")
	if action != editorSend || string(args) != `{"name":1,"count":-5}` {
		t.Errorf("second ctrl+f gave %v %s, want the arguments as written", action, args)
	}
	// An edit in between takes the warning back.
	e.keys("ctrl+f")
	e.typeText(" ")
	if action, _ := e.keys("ctrl+f"); action == editorSend {
		t.Error("ctrl+f after an edit sent without warning again")
	}
}

func TestEditorArrayOfObjectsOpensWithAnItemSkeleton(t *testing.T) {
	e := openEditor(t, `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object",
		"properties":{"sku":{"type":"string"},"qty":{"type":"integer","default":1},"gift":{"type":"boolean"}}}}}}`)
	want := "{\n  \"items\": [\n    {\n      \"sku\": \"\",\n      \"qty\": 1,\n      \"gift\": false\n    }\n  ]\n}"
	if got := e.json.Value(); got != want {
		t.Errorf("template:\n%s\nwant:\n%s", got, want)
	}
	if _, msg := parseArgs(e.json.Value()); msg != "" {
		t.Errorf("the skeleton is not JSON: %s", msg)
	}
}

func TestEditorRemembersTheLastArgumentsPerTool(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.m.tools.Select("echo")
	d.key("enter")
	d.typeText("hello")
	d.waitScreen("[hello")
	d.key("enter")
	d.waitScreen("✓ completed", "[text] hello")
	d.m.tools.Select("sleep")
	d.key("enter")
	d.waitScreen("CALL sleep")
	d.key("esc")
	d.m.tools.Select("echo")
	d.key("enter")
	if got := d.m.editor.fields[0].input.Value(); got != "hello" {
		t.Errorf("echo's form opened on %q, want the last text sent", got)
	}
}

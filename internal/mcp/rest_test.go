package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

func TestParseResource(t *testing.T) {
	r, err := ParseResource(json.RawMessage(`{"uri":"file:///a","name":"a","mimeType":"text/plain","size":12,"icons":[]}`))
	if err != nil || r.URI != "file:///a" || r.Size == nil || *r.Size != 12 {
		t.Fatalf("%v %+v", err, r)
	}
	if b, _ := json.Marshal(r); !strings.Contains(string(b), `"icons":[]`) {
		t.Errorf("not passed on as sent: %s", b)
	}
	for _, bad := range []string{`[]`, `{"name":"a"}`, `{"uri":3}`, `{"uri":""}`} {
		if _, err := ParseResource(json.RawMessage(bad)); !errors.Is(err, ErrMalformedResource) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestParseResourceTemplate(t *testing.T) {
	tm, err := ParseResourceTemplate(json.RawMessage(`{"uriTemplate":"file:///{dir}/{+path}{?q,lang}","name":"f"}`))
	if err != nil || strings.Join(tm.Variables, ",") != "dir,path,q,lang" || tm.VariablesErr != nil {
		t.Fatalf("%v %+v", err, tm)
	}
	tm, err = ParseResourceTemplate(json.RawMessage(`{"uriTemplate":"file:///{unclosed","name":"f"}`))
	if err != nil || tm.VariablesErr == nil {
		t.Errorf("a template that does not parse is kept, with why: %v %+v", err, tm)
	}
	if _, err := ParseResourceTemplate(json.RawMessage(`{"uri":"x"}`)); !errors.Is(err, ErrMalformedResource) {
		t.Errorf("no uriTemplate: %v", err)
	}
}

func TestExpandAndMatchTemplate(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		vars map[string]string
		want string
	}{
		{"demo://greeting/{lang}/{name}", map[string]string{"lang": "fr", "name": "A/B C"}, "demo://greeting/fr/A%2FB%20C"},
		{"file:///{+path}", map[string]string{"path": "a/b c"}, "file:///a/b%20c"},
		{"s://x{?q,n}", map[string]string{"q": "1"}, "s://x?q=1"},
	} {
		got, err := ExpandTemplate(tc.tmpl, tc.vars)
		if err != nil || got != tc.want {
			t.Errorf("%s %v: %q %v, want %q", tc.tmpl, tc.vars, got, err, tc.want)
		}
	}
	vars, ok := MatchTemplate("demo://greeting/{lang}/{name}", "demo://greeting/de/Grace")
	if !ok || vars["lang"] != "de" || vars["name"] != "Grace" {
		t.Errorf("match: %v %v", vars, ok)
	}
	if _, ok := MatchTemplate("demo://greeting/{lang}/{name}", "demo://other"); ok {
		t.Error("matched another URI")
	}
	if _, err := ExpandTemplate("x{", nil); err == nil {
		t.Error("a broken template expanded")
	}
}

func TestReadReadResult(t *testing.T) {
	r, err := ReadReadResult(json.RawMessage(`{"contents":[{"uri":"a","text":"hi"},{"uri":"b","mimeType":"image/png","blob":"AAEC"},{"uri":"c","blob":"%%%"}]}`))
	if err != nil || len(r.Contents) != 3 {
		t.Fatalf("%v %+v", err, r)
	}
	if c := r.Contents[0]; c.IsBlob || c.Size() != 2 || string(c.Bytes()) != "hi" {
		t.Errorf("text %+v", c)
	}
	if c := r.Contents[1]; !c.IsBlob || c.Size() != 3 || c.BlobErr != nil {
		t.Errorf("blob %+v", c)
	}
	if c := r.Contents[2]; !c.IsBlob || c.BlobErr == nil {
		t.Errorf("bad base64 %+v", c)
	}
	for _, bad := range []string{`{}`, `{"contents":[{"uri":"a"}]}`, `{"contents":[3]}`, `[]`} {
		if _, err := ReadReadResult(json.RawMessage(bad)); err == nil {
			t.Errorf("%s read", bad)
		}
	}
}

// Standard base64 pads with =: a blob whose length is not a multiple of
// three bytes ends in one or two of them, and is read whole.
func TestBlobWithPaddingIsRead(t *testing.T) {
	for blob, want := range map[string]string{"aGk=": "hi", "aA==": "h", "AAECAw==": "\x00\x01\x02\x03"} {
		c, err := ParseResourceContents(json.RawMessage(`{"uri":"a","blob":"` + blob + `"}`))
		if err != nil || !c.IsBlob || c.BlobErr != nil || string(c.Bytes()) != want {
			t.Errorf("blob %q: %q, %v, %v; want %q", blob, c.Bytes(), c.BlobErr, err, want)
		}
	}
}

func TestPromptArgumentsSchemaAndParams(t *testing.T) {
	p, err := ParsePrompt(json.RawMessage(`{"name":"review","arguments":[{"name":"code","required":true,"description":"the code"},{"name":"lang"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tool := p.ArgumentsTool()
	if tool.Schema == nil || len(tool.Input.Properties) != 2 || !tool.Input.Properties[0].Required || tool.Input.Properties[0].Description != "the code" {
		t.Fatalf("%+v", tool)
	}
	if err := tool.Schema.Validate(json.RawMessage(`{"lang":"go"}`)); err == nil {
		t.Error("a missing required argument passed")
	}
	if err := tool.Schema.Validate(json.RawMessage(`{"code":1}`)); err == nil {
		t.Error("a number passed for a string")
	}
	params, err := GetPromptParams("review", json.RawMessage(`{"code":"x"}`))
	if err != nil || string(params) != `{"name":"review","arguments":{"code":"x"}}` {
		t.Errorf("%s %v", params, err)
	}
	if _, err := GetPromptParams("review", json.RawMessage(`{"code":1}`)); err == nil {
		t.Error("a number argument was sent")
	}
	if _, err := ParsePrompt(json.RawMessage(`{"name":"x","arguments":[{"description":"nameless"}]}`)); !errors.Is(err, ErrMalformedPrompt) {
		t.Errorf("nameless argument: %v", err)
	}
	tm, _ := ParseResourceTemplate(json.RawMessage(`{"uriTemplate":"a://{x}/{y}","name":"t"}`))
	if tt := tm.ArgumentsTool(); len(tt.Input.Properties) != 2 || tt.Name != "a://{x}/{y}" {
		t.Errorf("template tool %+v", tt)
	}
}

func TestReadPromptResult(t *testing.T) {
	r, err := ReadPromptResult(json.RawMessage(`{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`))
	if err != nil || r.Description != "d" || r.Messages[0].Role != "user" {
		t.Fatalf("%v %+v", err, r)
	}
	if _, err := ReadPromptResult(json.RawMessage(`{}`)); err == nil {
		t.Error("no messages read")
	}
}

func TestCompletion(t *testing.T) {
	p := CompleteParams(PromptRef("review"), "framework", "fla", map[string]string{"language": "python"})
	want := `{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"framework","value":"fla"},"context":{"arguments":{"language":"python"}}}`
	if string(p) != want {
		t.Errorf("params %s", p)
	}
	if p := CompleteParams(TemplateRef("a://{x}"), "x", "", nil); string(p) != `{"ref":{"type":"ref/resource","uri":"a://{x}"},"argument":{"name":"x","value":""}}` {
		t.Errorf("params %s", p)
	}
	many := `{"completion":{"values":[` + strings.Repeat(`"v",`, 120) + `"v"],"hasMore":true}}`
	c, err := ReadCompleteResult(json.RawMessage(many))
	if err != nil || len(c.Values) != MaxCompletionValues || !c.TooMany || !c.HasMore {
		t.Errorf("%v %d %+v", err, len(c.Values), c.TooMany)
	}
	if _, err := ReadCompleteResult(json.RawMessage(`{"values":[]}`)); err == nil {
		t.Error("a result without completion read")
	}
}

func TestLogging(t *testing.T) {
	if _, err := SetLevelParams("loud"); err == nil {
		t.Error("an unknown level was accepted")
	}
	if p, err := SetLevelParams("warning"); err != nil || string(p) != `{"level":"warning"}` {
		t.Errorf("%s %v", p, err)
	}
	if LevelRank("debug") >= LevelRank("emergency") || LevelRank("x") != -1 {
		t.Error("ranks")
	}
	e, err := ParseLogMessage(json.RawMessage(`{"level":"error","logger":"db","data":{"err":"down"},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}`))
	if err != nil || e.Level != "error" || e.Logger != "db" || string(e.Data) != `{"err":"down"}` || e.RelatedTask != "t1" || e.Problem != "" {
		t.Errorf("%v %+v", err, e)
	}
	e, err = ParseLogMessage(json.RawMessage(`{"level":"loud","logger":3}`))
	if err != nil || e.Problem != "unknown level, logger is not a string, no data" {
		t.Errorf("%v %+v", err, e)
	}
	if _, err := ParseLogMessage(json.RawMessage(`"x"`)); err == nil {
		t.Error("params not an object were read")
	}
}

func TestRequestTarget(t *testing.T) {
	for _, tc := range []struct{ method, params, want string }{
		{"tools/call", `{"name":"sleep"}`, "sleep"},
		{"prompts/get", `{"name":"review","arguments":{}}`, "review"},
		{"resources/read", `{"uri":"demo://x"}`, "demo://x"},
		{"resources/subscribe", `{"uri":"demo://x"}`, "demo://x"},
		{"completion/complete", string(CompleteParams(PromptRef("p"), "lang", "g", nil)), "lang"},
		{"logging/setLevel", `{"level":"debug"}`, "debug"},
		{"ping", `{}`, ""},
		{"resources/read", `[1]`, ""},
	} {
		if got := RequestTarget(tc.method, json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("%s %s: %q", tc.method, tc.params, got)
		}
	}
}

func TestPageCursor(t *testing.T) {
	for _, tc := range []struct{ method, params, want string }{
		{"resources/list", `{"cursor":"2","_meta":{}}`, "2"},
		{"tools/list", `{"_meta":{"progressToken":1}}`, ""},
		{"tools/list", ``, ""},
		{"tools/call", `{"name":"x","arguments":{"cursor":"2"}}`, ""},
		{"prompts/list", `{"cursor":7}`, ""},
	} {
		if got := PageCursor(tc.method, json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.params, got, tc.want)
		}
	}
}

func TestSubscribeNeedsItsOwnCapability(t *testing.T) {
	peer := func(caps string) session.PeerInfo {
		return session.PeerInfo{ProtocolVersion: "2025-11-25", Capabilities: json.RawMessage(caps)}
	}
	if err := CheckDeclared(peer(`{"resources":{}}`), "resources/subscribe"); !errors.Is(err, ErrNotDeclared) ||
		!strings.Contains(err.Error(), "resources.subscribe") {
		t.Errorf("subscribe without the option: %v", err)
	}
	if err := CheckDeclared(peer(`{"resources":{"subscribe":true}}`), "resources/unsubscribe"); err != nil {
		t.Errorf("with it: %v", err)
	}
	if err := CheckDeclared(peer(`{"resources":{}}`), "resources/read"); err != nil {
		t.Errorf("read: %v", err)
	}
	if err := CheckDeclared(peer(`{}`), "completion/complete"); !errors.Is(err, ErrNotDeclared) {
		t.Errorf("completion: %v", err)
	}
}

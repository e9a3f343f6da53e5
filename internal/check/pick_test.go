package check

import (
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

func parseTools(t *testing.T, entries ...string) []mcp.Tool {
	t.Helper()
	var tools []mcp.Tool
	for _, e := range entries {
		tool, err := mcp.ParseTool(json.RawMessage(e))
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	return tools
}

func TestCandidatesAreTheToolsThatLookSlow(t *testing.T) {
	tools := parseTools(t,
		`{"name":"get-structured-content","description":"Returns content along with a schema"}`,
		`{"name":"wipe","description":"Waits, then deletes everything","annotations":{"destructiveHint":true}}`,
		`{"name":"research","description":"Slow research","execution":{"taskSupport":"required"}}`,
		`{"name":"sleep","inputSchema":{"type":"object","properties":{"seconds":{"type":"number","default":10}}}}`,
		`{"name":"trigger-long-running-operation","inputSchema":{"type":"object","properties":{"duration":{"type":"number","default":10}}}}`,
		`{"name":"quick-wait","description":"A short wait."}`,
	)
	got := candidates(tools)
	var names []string
	for _, c := range got {
		names = append(names, c.tool.Name)
	}
	// A duration and a slow word score highest, in the list's order;
	// "along" is not "long"; destructive tools and tools that need a task
	// are never called.
	want := []string{"sleep", "trigger-long-running-operation", "quick-wait"}
	if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Errorf("candidates %v; want %v", names, want)
	}
	if string(got[0].args) != `{"seconds":3}` {
		t.Errorf("sleep's args %s; want the duration shortened to 3 s", got[1].args)
	}
}

func TestBuildArgsFillsRequiredArguments(t *testing.T) {
	tool := parseTools(t, `{"name":"t","inputSchema":{"type":"object","required":["text","n","mode","flag"],"properties":{
		"text":{"type":"string"},"n":{"type":"integer"},"mode":{"enum":["a","b"]},"flag":{"type":"boolean"},
		"seconds":{"type":"number","default":1},"optional":{"type":"string"}}}}`)[0]
	got := string(buildArgs(tool, true))
	want := `{"flag":false,"mode":"a","n":1,"text":"mcpoke check"}`
	if got != want {
		t.Errorf("args %s; want %s (a default already under 3 s is kept)", got, want)
	}
	if tool.Schema.Validate(json.RawMessage(got)) != nil {
		t.Errorf("built args %s break the schema", got)
	}
}

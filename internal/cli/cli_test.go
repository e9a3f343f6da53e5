package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

func TestParseArgs(t *testing.T) {
	for in, wantErr := range map[string]string{
		``:            "",
		`{"a":1}`:     "",
		`{"a":`:       "--args is not valid JSON",
		`[1]`:         "--args must be a JSON object",
		`null`:        "--args must be a JSON object",
		`{"a":1} {}`:  "--args is not valid JSON",
		`"just text"`: "--args must be a JSON object",
	} {
		_, err := parseArgs(in)
		if (err == nil) != (wantErr == "") || err != nil && !strings.Contains(err.Error(), wantErr) {
			t.Errorf("parseArgs(%q) = %v, want %q", in, err, wantErr)
		}
		if err != nil && exitStatus(err) != ExitUsage {
			t.Errorf("parseArgs(%q): exit code %d", in, exitStatus(err))
		}
	}
}

func TestFindToolSuggests(t *testing.T) {
	tools := []mcp.Tool{{Name: "sleep"}, {Name: "stubborn"}, {Name: "echo"}}
	if _, err := findTool(tools, "echo", "demo"); err != nil {
		t.Fatal(err)
	}
	_, err := findTool(tools, "eco", "demo")
	if err == nil || !strings.Contains(err.Error(), `did you mean echo?`) || exitStatus(err) != ExitUsage {
		t.Errorf("got %v", err)
	}
	_, err = findTool(tools, "zzzzzzzz", "demo")
	if err == nil || !strings.Contains(err.Error(), "its tools: sleep, stubborn, echo") {
		t.Errorf("got %v", err)
	}
	_, err = findTool(nil, "x", "demo")
	if err == nil || !strings.Contains(err.Error(), "it has no tools") {
		t.Errorf("got %v", err)
	}
}

func TestCheckArgsWarnsOnUnusableSchema(t *testing.T) {
	var warned string
	err := checkArgs(parseTool(t, `{"name":"t","inputSchema":{"$ref":"https://example.com/s.json"}}`), json.RawMessage(`{}`),
		func(w string) { warned = w })
	if err != nil || !strings.Contains(warned, "not checking arguments") {
		t.Fatalf("err %v, warning %q", err, warned)
	}
}

// parseTool reads a tools/list entry or fails the test.
func parseTool(t *testing.T, entry string) mcp.Tool {
	t.Helper()
	tool, err := mcp.ParseTool(json.RawMessage(entry))
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// mcpoke tools lists arguments in the schema's order, the order of the
// UI's form, not sorted by name.
func TestPrintToolKeepsSchemaOrder(t *testing.T) {
	var b strings.Builder
	printTool(&b, parseTool(t, `{"name":"t","inputSchema":{"type":"object","properties":{
		"zeta":{"type":"string"},"alpha":{"type":["integer","null"],"default":3},"mode":{"enum":["a","b"]}},"required":["mode"]}}`))
	want := "\nt\n" +
		"    zeta           string     \n" +
		"    alpha          [integer null] (default 3)\n" +
		"  * mode           one of [\"a\",\"b\"] \n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	s := summarize(d)
	if s.P50Ms != 50 || s.P90Ms != 90 || s.P99Ms != 99 || s.MaxMs != 100 || s.MinMs != 1 || s.MeanMs != 50.5 {
		t.Errorf("%+v", s)
	}
	if s := summarize([]time.Duration{time.Millisecond}); s.P99Ms != 1 {
		t.Errorf("one sample: %+v", s)
	}
	if s := summarize(nil); s.MaxMs != 0 {
		t.Errorf("no samples: %+v", s)
	}
}

func TestDefaultArgs(t *testing.T) {
	got := defaultArgs(parseTool(t, `{"name":"t","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"n":{"type":"number"},"opt":{"type":"string"}},"required":["message","n"]}}`))
	if string(got) != `{"message":"hello"}` {
		t.Errorf("got %s", got)
	}
}

// Exit codes are a promise to scripts: the tests compare with the
// documented numbers, not with the constants, which could be wrong too.
func TestExitCodeOfReport(t *testing.T) {
	for _, tc := range []struct {
		state   session.State
		isError bool
		want    int
	}{
		{session.Completed, false, 0},
		{session.Completed, true, 1},
		{session.Failed, false, 1},
		{session.Cancelled, false, 3},
		{session.TimedOut, false, 4},
	} {
		r := &callReport{State: tc.state.String(), isError: tc.isError}
		if got := r.exitCode(); got != tc.want {
			t.Errorf("%v isError=%v: %d, want %d", tc.state, tc.isError, got, tc.want)
		}
	}
}

func TestExitStatusOfErrors(t *testing.T) {
	for _, tc := range []struct {
		what string
		err  error
		want int
	}{
		{"no error", nil, 0},
		{"any other error", errors.New("boom"), 1},
		{"a usage error", usageError("bad %s", "flag"), 2},
		{"withCode(ExitCancelled)", withCode(ExitCancelled, errors.New("cancelled")), 3},
		{"withCode(ExitTimedOut), wrapped", fmt.Errorf("call: %w", withCode(ExitTimedOut, errors.New("timed out"))), 4},
		{"a quiet exit 3", quietExit(3), 3},
	} {
		if got := exitStatus(tc.err); got != tc.want {
			t.Errorf("exitStatus(%s) = %d, want %d", tc.what, got, tc.want)
		}
	}
	if err := quietExit(0); err != nil {
		t.Errorf("quietExit(0) = %v, want nil (exit 0)", err)
	}
}

// The help of mcpoke and of mcpoke call lists every exit code with its
// meaning.
func TestExitCodesInHelp(t *testing.T) {
	want := []string{
		"0  completed",
		"1  failed, or the tool returned an error result",
		"2  bad usage or input",
		"3  cancelled",
		"4  timed out",
	}
	root := newRoot()
	call, _, err := root.Find([]string{"call"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []*cobra.Command{root, call} {
		for _, line := range want {
			if !strings.Contains(cmd.Long, "\n  "+line) {
				t.Errorf("%s --help lacks the exit code line %q:\n%s", cmd.Name(), line, cmd.Long)
			}
		}
	}
}

func TestPrintReportSanitizesServerText(t *testing.T) {
	code := int64(-1)
	r := &callReport{
		Method: "tools/call",
		Tool:   "t",
		State:  "failed",
		Server: reportServer{Name: "evil\x1b]0;title\x07", Version: "1\u202e", ProtocolVersion: "x"},
		Result: json.RawMessage(`{"content":[{"type":"text","text":"line1\nline2\u001b[2J"},{"type":"image","mimeType":"image/png","data":"AAAA"}]}`),
		Error:  &reportError{Code: &code, Message: "bad\x1b[31m"},
		Cancel: &reportCancel{Reason: "r\x07"},
		Late:   []reportLate{{Kind: "progress", AfterCancelMs: 10}, {Kind: "progress", AfterCancelMs: 1500}, {Kind: "response", AfterCancelMs: 700}},
		Stderr: []string{"log\x1b[0m"},
	}
	var b bytes.Buffer
	printReport(&b, r, &callFlags{stderr: true})
	out := b.String()
	for _, c := range out {
		if c < 0x20 && c != '\n' || c == 0x7f || c == 0x202e {
			t.Fatalf("control character %U reached the output:\n%q", c, out)
		}
	}
	for _, want := range []string{"  line1\n  line2\\x1b[2J", "[image image/png, 4 bytes of base64]", "1 response, 700ms after the cancel",
		"2 progress, 10ms to 1.50s after the cancel", "(code -1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestHuman(t *testing.T) {
	for ms, want := range map[float64]string{0.0523: "0.0523ms", 3.5: "3.5ms", 12.4: "12ms", 999.4: "999ms", 999.6: "1.00s", 1000: "1.00s", 1500: "1.50s"} {
		if got := human(ms); got != want {
			t.Errorf("human(%v) = %s, want %s", ms, got, want)
		}
	}
}

// An explicit null for a parameter the schema neither allows null for nor
// requires is sent as asked, with a warning; a null for a required one,
// or arguments wrong besides their nulls, are still refused.
func TestCheckArgsSendsAnExplicitNullWithAWarning(t *testing.T) {
	tool := parseTool(t, `{"name":"t","inputSchema":{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},"verbose":{"type":"boolean","x-mcp-header":"Verbose"}},"required":["region"]}}`)
	var warned string
	err := checkArgs(tool, json.RawMessage(`{"region":"us-east1","verbose":null}`), func(w string) { warned = w })
	if err != nil || !strings.Contains(warned, `does not allow null for "verbose"`) {
		t.Fatalf("err %v, warning %q", err, warned)
	}
	for _, args := range []string{`{"region":null}`, `{"region":1,"verbose":null}`} {
		if err := checkArgs(tool, json.RawMessage(args), func(string) {}); err == nil {
			t.Errorf("%s was accepted", args)
		}
	}
	headers, err := mcp.ParamHeaders(tool, json.RawMessage(`{"region":"us-east1","verbose":null}`))
	if _, sent := headers["Verbose"]; err != nil || sent || headers["Region"] != "us-east1" {
		t.Errorf("headers %v %v: the null's is left out, the others sent", headers, err)
	}
}

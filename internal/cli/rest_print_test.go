package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A resource's contents and a prompt's messages pass termtext like a
// tool's result; a blob shows as its type and size, never as bytes.
func TestPrintReadAndPromptResultsSanitize(t *testing.T) {
	for _, tc := range []struct {
		method, result string
		want           []string
	}{
		{"resources/read", `{"contents":[{"uri":"a://x\u001b[2J","mimeType":"text/plain","text":"one\ntwo\u202e\n"},{"uri":"b://y","mimeType":"image/png","blob":"iVBORw0K"}]}`,
			[]string{"[text a://x\\x1b[2J (text/plain)]", "    one\n    two\\u202e\n", "[blob b://y (image/png), 6 B]"}},
		{"prompts/get", `{"description":"d\u0007","messages":[{"role":"user\u001b]0;t","content":{"type":"text","text":"hi"}}]}`,
			[]string{"[description]", "d\\x07", "[user\\x1b]0;t text]", "    hi"}},
	} {
		var b bytes.Buffer
		printReport(&b, &callReport{Method: tc.method, URI: "u", State: "completed", Result: json.RawMessage(tc.result)}, &callFlags{})
		out := b.String()
		for _, c := range out {
			if c < 0x20 && c != '\n' || c == 0x202e {
				t.Fatalf("%s: control character %U reached the output:\n%q", tc.method, c, out)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.method, w, out)
			}
		}
	}
}

func TestPrintLogEscapesAndSaysWhatCameWithTheRequest(t *testing.T) {
	var b bytes.Buffer
	printLog(&b, []reportLog{
		{AtMs: 1, Level: "error", Logger: "db\x1b[2J", Data: json.RawMessage(`{"e":"x\u0007"}`), Related: true},
		{AtMs: 2, Level: "loud", Data: json.RawMessage(`"plain"`), Problem: "unknown level"},
	}, 3)
	out := b.String()
	for _, w := range []string{"log       3 messages from the server while it ran", `error   db\x1b[2J {"e":"x\u0007"} (with this request)`,
		"loud    plain (unknown level)", "… 1 more not kept"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// A call stopped while the server still wanted input ends on an
// input_required result: the text report names it and the size of its
// opaque requestState, and quotes only its head and tail (it may be
// megabytes).
func TestPrintInputRequiredResultHidesRequestState(t *testing.T) {
	state := strings.Repeat("s", 1<<20)
	res := `{"resultType":"input_required","requestState":"` + state + `","inputRequests":{"k\u001b[2J":{"method":"elicitation/create","params":{"message":"m"}}}}`
	var b bytes.Buffer
	printReport(&b, &callReport{Method: "tools/call", State: "completed", Result: json.RawMessage(res),
		Rounds: []reportRound{{Round: 1, ResultType: "input_required"}}}, &callFlags{})
	out := b.String()
	if len(out) > 4096 {
		t.Fatalf("the report is %d bytes: the requestState reached it", len(out))
	}
	q := strings.Repeat("s", 64)
	if want := `input_required: 1 input request (listed under rounds); requestState of 1048576 bytes: "` + q + "…[1048576 bytes in all]…" + q + `"`; !strings.Contains(out, want) {
		t.Errorf("report lacks %q:\n%s", want, out)
	}
}

// A task's id, status and status messages are escaped once: quoted
// status messages show termtext's escapes, not doubled backslashes.
func TestPrintTaskEscapesOnce(t *testing.T) {
	var b bytes.Buffer
	line := func(label, format string, a ...any) { b.WriteString(label + " " + fmt.Sprintf(format, a...) + "\n") }
	printTask(line, &reportTask{ID: "t\x1b[2J", Status: "working\u202e", StatusMessage: "half\x07",
		Statuses: []reportTaskStatus{{Status: "working", StatusMessage: "step\x1b]0;x\x07\U000e0041", Via: "tasks/get"}}})
	out := b.String()
	assertTerminalSafe(t, "task", []byte(out))
	for _, want := range []string{`task t\x1b[2J · working\u202e: half\x07`, `working "step\x1b]0;x\x07\U000e0041" (tasks/get)`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

// A result not of its method's shape (an initialize result answering
// tools/call, a content of the wrong type) says so above its JSON.
func TestPrintResultOfTheWrongShapeSaysSo(t *testing.T) {
	for method, res := range map[string]string{
		"tools/call":     `{"protocolVersion":"2025-11-25","serverInfo":{"name":"x"}}`,
		"resources/read": `{"contents":{"uri":"x"}}`,
		"prompts/get":    `{"messages":"hi"}`,
	} {
		var b bytes.Buffer
		printReport(&b, &callReport{Method: method, State: "completed", Result: json.RawMessage(res)}, &callFlags{})
		if !strings.Contains(b.String(), "  (not a ") {
			t.Errorf("%s: the report does not say the result is of another shape:\n%s", method, b.String())
		}
	}
}

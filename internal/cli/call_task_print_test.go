package cli

import (
	"fmt"
	"strings"
	"testing"
)

// The answer to an extension task's question can hold the server's text
// (a schema error names its properties): the report escapes it as it
// escapes the method and key beside it.
func TestPrintTaskEscapesInputAnswer(t *testing.T) {
	var b strings.Builder
	line := func(label, format string, a ...any) {
		fmt.Fprintf(&b, "%-9s "+format+"\n", append([]any{label}, a...)...)
	}
	printTask(line, &reportTask{ID: "t1", Status: "completed", Inputs: []reportTaskInput{{
		Key: "who", Method: "elicitation/create", AtMs: 5,
		Answer: "accept with the given content (--elicit accept:JSON), which breaks the requested schema: missing property \x1b]0;owned\x07name\x1b[2J",
	}}})
	if out := b.String(); strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("server text reached the terminal raw: %q", out)
	}
}

// The same holds for the answer to a server's request in the report.
func TestAskedOutcomeEscapesAnswer(t *testing.T) {
	for _, state := range []string{"completed", "cancelled"} {
		out := askedOutcome(reportAsked{State: state, Answer: "accept …: missing property \x1b[2Jname"})
		if strings.ContainsRune(out, '\x1b') {
			t.Errorf("%s: server text reached the terminal raw: %q", state, out)
		}
	}
}

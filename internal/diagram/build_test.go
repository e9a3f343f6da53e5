package diagram

import (
	"errors"
	"strings"
	"testing"
)

// readString reads a transcript written inline.
func readString(t *testing.T, s string) Transcript {
	t.Helper()
	tr, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The default request is the last tools/call even when it is the first
// request of all.
func TestDefaultRequestFindsTheFirstCall(t *testing.T) {
	reqs := []Request{{ID: "1", Method: "tools/call"}, {ID: "2", Method: "tools/list"}}
	if id, ok := DefaultRequest(reqs); id != "1" || !ok {
		t.Errorf("DefaultRequest = %q, %v; want the tools/call, 1", id, ok)
	}
	reqs = []Request{{ID: "1", Method: "tools/list"}, {ID: "2", Method: "ping"}}
	if id, ok := DefaultRequest(reqs); id != "1" || !ok {
		t.Errorf("DefaultRequest = %q, %v; want the tools/list, 1", id, ok)
	}
}

// A request the transcript does not hold is an error that says so, not
// an empty drawing.
func TestBuildOfAMissingRequestFails(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"t":2,"dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}}
{"t":3,"dir":"in","msg":{"jsonrpc":"2.0","id":2,"result":{}}}
`)
	for _, o := range []Options{{Request: "7"}, {Request: "2", Incoming: true}} {
		if _, err := Build(tr, o); !errors.Is(err, ErrNoRequest) {
			t.Errorf("Build(%+v): %v, want ErrNoRequest", o, err)
		}
	}
}

// arrowLabels are l's arrows' labels, one a line.
func arrowLabels(l Life) string {
	var b strings.Builder
	for _, a := range l.Arrows {
		b.WriteString(a.Label + "\n")
	}
	return b.String()
}

// A second answer to the request is drawn as a duplicate; the first
// counts.
func TestSecondAnswerIsADuplicate(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"t":2,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{}}}
{"t":3,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{"isError":true}}}
`)
	l, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "tools/call a (id 1)\nresult\nduplicate result (isError)\n"
	if got := arrowLabels(l); got != want {
		t.Errorf("arrows:\n%s\nwant:\n%s", got, want)
	}
	if l.Outcome != "completed at +1ms" {
		t.Errorf("outcome %q", l.Outcome)
	}
}

// An input_required result names the inputs it asks for, and only when
// it asks for some.
func TestInputRequiredLabel(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"t":2,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}}
`)
	l, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Arrows[1].Label, "result: input required"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
}

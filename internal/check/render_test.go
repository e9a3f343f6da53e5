package check

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// hostileReport is a report whose server text holds a terminal escape,
// a bidi override and a tag character.
func hostileReport() *Report {
	evil := "srv\x1b]0;pwned\x07\u202e\U000E0041"
	rep := &Report{Server: Server{Name: evil, Version: "1"}, Protocol: "2025-11-25", Transport: "stdio",
		Tool: &Tool{Name: evil, Args: []byte(`{}`), Why: "given with --tool"}}
	res := catalogue[0].result()
	res.Status = Warn
	res.Evidence.fact("the server said %s", evil)
	res.Evidence.frame("response "+evil, []byte(`{"id":1,"result":"`+evil+`"}`))
	failed := catalogue[2].result()
	failed.Status = Fail
	failed.Evidence.fact("the connection ended")
	skipped := catalogue[7].result()
	skipped.Status, skipped.Reason = Skip, "needs the HTTP transport"
	rep.Checks = []Result{res, failed, skipped}
	rep.summarize()
	return rep
}

// raw says whether out holds any of the hostile characters unescaped.
func raw(out string) bool { return strings.ContainsAny(out, "\x1b\x07\u202e\U000E0041") }

func TestTextEscapesServerText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if raw(out) {
		t.Errorf("raw control characters in\n%s", out)
	}
	for _, want := range []string{"WARN  1  ", "FAIL  3  ", "SKIP  8  ", "needs the HTTP transport", "1 warn, 1 fail, 1 skip", "a MUST failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestMarkdownEscapesServerText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); raw(out) || !strings.Contains(out, "| 3 | The server is healthy after a cancel | MUST | **FAIL** |") {
		t.Errorf("markdown:\n%s", out)
	}
}

func TestJUnitIsWellFormedAndFailsOnlyOnMust(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	s := got.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Skipped != 1 {
		t.Errorf("suite %+v; want 3 tests, 1 failure, 1 skipped", s)
	}
	if s.Cases[0].Failure != nil || !strings.Contains(s.Cases[0].SystemOut, "WARN (SHOULD)") {
		t.Errorf("a warning is %+v; want a pass with WARN in system-out", s.Cases[0])
	}
	if s.Cases[1].Failure == nil || !strings.HasPrefix(s.Cases[1].Failure.Message, "MUST: ") {
		t.Errorf("the broken MUST is %+v; want a failure", s.Cases[1])
	}
	if raw(b.String()) {
		t.Errorf("raw control characters in\n%s", b.String())
	}
}

package cli

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// answers returns a file that reads as if the user typed lines.
func answers(t *testing.T, lines string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() {
		w.WriteString(lines)
		w.Close()
	}()
	return r
}

func inputSpec(t *testing.T, config string) connect.Spec {
	t.Helper()
	s, err := connect.ParseConfigVars([]byte(config), connect.Vars{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Get("x")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestAskInputsFillsTheSpec(t *testing.T) {
	spec := inputSpec(t, `{"inputs": [
		{"id": "user", "description": "User \u001b[31mname"},
		{"id": "region", "type": "pickString", "options": ["eu", "us"], "default": "eu"}],
		"servers": {"x": {"command": "srv", "args": ["${input:user}", "${input:region}"]}}}`)
	var prompts bytes.Buffer
	got, err := askInputs(spec, answers(t, "ann\n\n"), &prompts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Args, []string{"ann", "eu"}) {
		t.Errorf("args %q", got.Args)
	}
	if p := prompts.String(); strings.Contains(p, "\x1b") || !strings.Contains(p, `User \x1b[31mname: `) || !strings.Contains(p, "(eu, us) [eu]: ") {
		t.Errorf("prompts %q", p)
	}
}

func TestAskInputsRefusesAnAnswerOutsideTheOptions(t *testing.T) {
	spec := inputSpec(t, `{"inputs": [{"id": "region", "type": "pickString", "options": ["eu", "us"]}],
		"servers": {"x": {"command": "srv", "args": ["${input:region}"]}}}`)
	if _, err := askInputs(spec, answers(t, "mars\n"), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), `"mars" is not one of its options`) {
		t.Errorf("got %v", err)
	}
	if _, err := askInputs(spec, answers(t, ""), &bytes.Buffer{}); err == nil {
		t.Error("no answer at all was taken")
	}
}

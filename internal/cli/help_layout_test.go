package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"charm.land/fang/v2"
	"github.com/charmbracelet/x/ansi"
)

// brokenWord is a line that ends inside a hyphenated word.
var brokenWord = regexp.MustCompile(`[0-9A-Za-z]-$`)

// mcpoke --help fits a 120-column terminal: no line runs past the edge
// (where the terminal would break it mid-word), the commands are listed
// by name and arguments, and a version like 2025-11-25 is never split.
func TestHelpFitsTheScreen(t *testing.T) {
	t.Setenv("__FANG_TEST_WIDTH", "120")
	root := newRoot()
	tidyHelp(root)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"--help"})
	if err := fang.Execute(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	help := ansi.Strip(out.String())
	for _, line := range strings.Split(help, "\n") {
		if w := ansi.StringWidth(strings.TrimRight(line, " ")); w > 120 {
			t.Errorf("a help line %d wide: %q", w, line)
		}
	}
	for _, line := range strings.Split(help, "\n") {
		if brokenWord.MatchString(strings.TrimRight(line, " ")) {
			t.Errorf("a word broken at its hyphen: %q", line)
		}
	}
	for _, want := range []string{"bench [-- CMD ARGS...] [--flags]", "diagram FILE.ndjson [--flags]", "2025-11-25"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help lacks %q:\n%s", want, help)
		}
	}
}

// A --url without its scheme is answered with the URL it probably meant.
func TestURLWithoutSchemeSuggestsOne(t *testing.T) {
	_, err := pickSpec(&globalFlags{url: "127.0.0.1:8080/mcp"}, nil)
	if err == nil || !strings.Contains(err.Error(), "did you mean http://127.0.0.1:8080/mcp?") || exitStatus(err) != ExitUsage {
		t.Fatalf("got %v", err)
	}
}

// A Use line loses the flags it spells out, repeatable ones too, and
// keeps its arguments and the server command.
func TestUseLinesLoseTheirFlags(t *testing.T) {
	for use, want := range map[string]string{
		"listen [--tools] [--resource URI]... [--for DUR] [-- CMD ARGS...]": "listen [-- CMD ARGS...]",
		"bench [--tool echo] [-n 2000] [-- CMD ARGS...]":                    "bench [-- CMD ARGS...]",
		"prompt NAME [--args JSON] [flags] [-- CMD ARGS...]":                "prompt NAME [-- CMD ARGS...]",
		"login --url URL": "login --url URL",
	} {
		if got := strings.TrimSpace(flagSpelling.ReplaceAllString(use, "")); got != want {
			t.Errorf("%q: %q, want %q", use, got, want)
		}
	}
}

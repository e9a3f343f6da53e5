package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// backgroundCmd is a script line that starts a command in the background:
// its last word is & or &name&.
var backgroundCmd = regexp.MustCompile(`(^|\s)&([A-Za-z0-9_]*&)?\s*$`)

// skipCmd is a script line that may skip the script, with or without a
// condition in front.
var skipCmd = regexp.MustCompile(`^(\[[^\]]*\]\s*)*skip(\s|$)`)

// skipWithReason is a skip line that gives its reason.
var skipWithReason = regexp.MustCompile(`skip\s+\S`)

// TestScriptsSkipBeforeBackground keeps every script's skip ahead of its
// first background command: a skip that comes after one stops the script
// with that process still running, testscript kills it (exit 130) and
// counts the script as failed, so a machine without the npm peers fails
// `go test ./...` instead of skipping. Every skip also says why.
func TestScriptsSkipBeforeBackground(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts found in testdata/script (err=%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range skipProblems(string(txtar.Parse(data).Comment)) {
			t.Errorf("%s: %s", f, p)
		}
	}
}

// skipProblems lists, for one script, each skip that comes after a
// background command and each skip that gives no reason.
func skipProblems(script string) []string {
	var problems []string
	background := 0 // line of the first background command, 0 for none yet
	for i, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if skipCmd.MatchString(line) {
			if background != 0 {
				problems = append(problems, fmt.Sprintf("line %d skips after the background command on line %d: move the skip before anything starts", i+1, background))
			}
			if !skipWithReason.MatchString(line) {
				problems = append(problems, fmt.Sprintf("line %d skips without saying why", i+1))
			}
			continue
		}
		if background == 0 && backgroundCmd.MatchString(line) {
			background = i + 1
		}
	}
	return problems
}

// TestSkipProblems: the guard finds a skip after a background command
// (rest_http.txtar's old shape) and a skip without a reason.
func TestSkipProblems(t *testing.T) {
	bad := "exec mcpoke demo-server --http 127.0.0.1:$PORT &demo&\nwaitport $PORT\n\n[!peers] skip 'reference server not installed'\n[!x] skip\n"
	got := skipProblems(bad)
	if len(got) != 3 || !strings.Contains(got[0], "line 4 skips after the background command on line 1") || !strings.Contains(got[2], "line 5 skips without saying why") {
		t.Errorf("skipProblems(bad) = %q", got)
	}
	good := "# a comment & more\n[!peers] skip 'reference server not installed'\nexec node x &http&\nexec mcpoke tools\n"
	if got := skipProblems(good); len(got) != 0 {
		t.Errorf("skipProblems(good) = %q, want none", got)
	}
}

// bareSkip is a Go test's skip that gives no reason.
var bareSkip = regexp.MustCompile(`\.(Skip\(\)|SkipNow\(\))`)

// TestGoSkipsSayWhy: on a fresh machine every test that cannot run skips,
// and says why (Skip or Skipf with a reason), never a bare Skip().
func TestGoSkipsSayWhy(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if bareSkip.MatchString(line) && !strings.Contains(line, "bareSkip") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d skips without saying why: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

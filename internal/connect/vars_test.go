package connect

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func testVars(t *testing.T) Vars {
	return Vars{
		LookupEnv: func(k string) (string, bool) {
			v, ok := map[string]string{"TOKEN": "s3cret", "EMPTY": ""}[k]
			return v, ok
		},
		Home:      "/home/ann",
		Workspace: t.TempDir(),
	}
}

func TestConfigVariablesExpandAsVSCodeDoes(t *testing.T) {
	vars := testVars(t)
	s, err := ParseConfigVars([]byte(`{"servers": {"x": {
		"command": "${userHome}${/}bin${pathSeparator}srv",
		"args": ["--root", "${workspaceFolder}", "--name", "${workspaceFolderBasename}", "${env:TOKEN}", "[${env:UNSET}]", "${not closed"],
		"env": {"API_KEY": "${env:TOKEN}"},
		"cwd": "${workspaceFolder}"
	}}}`), vars)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Get("x")
	if err != nil {
		t.Fatal(err)
	}
	ws := vars.Workspace
	wantArgs := []string{"--root", ws, "--name", filepath.Base(ws), "s3cret", "[]", "${not closed"}
	if spec.Command != "/home/ann/bin/srv" || !slices.Equal(spec.Args, wantArgs) || spec.Dir != ws ||
		!slices.Equal(spec.Env, []string{"API_KEY=s3cret"}) {
		t.Errorf("spec %+v", spec)
	}
}

func TestUnknownConfigVariableIsAnError(t *testing.T) {
	s, err := ParseConfigVars([]byte(`{"servers": {
		"bad": {"command": "srv", "args": ["${workspaceRoot}"]},
		"good": {"command": "srv"}}}`), testVars(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("bad"); err == nil || !strings.Contains(err.Error(), "unknown variable ${workspaceRoot}") {
		t.Errorf("bad entry: %v", err)
	}
	if _, err := s.Get("good"); err != nil {
		t.Errorf("one bad entry spoiled another: %v", err)
	}
}

func TestConfigWithByteOrderMark(t *testing.T) {
	s, err := ParseConfigVars([]byte("\xef\xbb\xbf"+`{"mcpServers": {"x": {"command": "srv"}}}`), testVars(t))
	if err != nil {
		t.Fatal(err)
	}
	if spec, err := s.Get("x"); err != nil || spec.Command != "srv" {
		t.Errorf("spec %+v, %v", spec, err)
	}
}

func TestEnvFileMergesUnderEnv(t *testing.T) {
	vars := testVars(t)
	env := "# keys\nexport A=1\nB = 'two words'  \nC=\"x\\ty\"\nD=plain # comment\n\nE=from-file\n"
	if err := os.WriteFile(filepath.Join(vars.Workspace, ".env"), []byte(env), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ParseConfigVars([]byte(`{"servers": {"x": {"command": "srv",
		"envFile": "${workspaceFolder}/.env", "env": {"E": "from-config"}}}}`), vars)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Get("x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A=1", "B=two words", "C=x\ty", "D=plain", "E=from-config"}
	if !slices.Equal(spec.Env, want) {
		t.Errorf("env %q, want %q", spec.Env, want)
	}
}

func TestEnvFileErrors(t *testing.T) {
	vars := testVars(t)
	os.WriteFile(filepath.Join(vars.Workspace, "bad.env"), []byte("A=1\nnot a pair\n"), 0o600)
	for _, tc := range []struct{ file, want string }{
		{"missing.env", "no such file"},
		{"bad.env", "line 2: want KEY=VALUE"},
		{"/dev/zero", "not a regular file"},
	} {
		s, _ := ParseConfigVars([]byte(`{"servers": {"x": {"command": "srv", "envFile": "`+tc.file+`"}}}`), vars)
		if _, err := s.Get("x"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("envFile %s: %v, want %q", tc.file, err, tc.want)
		}
	}
}

func TestInputsAreAskedForNotPassedThrough(t *testing.T) {
	s, err := ParseConfigVars([]byte(`{
		"inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": true}],
		"servers": {
			"x": {"command": "srv", "args": ["--key=${input:key}"], "env": {"K": "${input:key}"}},
			"typo": {"command": "srv", "args": ["${input:kee}"]}}}`), testVars(t))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Get("x")
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Inputs) != 1 || spec.Inputs[0].ID != "key" || !spec.Inputs[0].Password {
		t.Fatalf("inputs %+v", spec.Inputs)
	}
	var missing MissingInputError
	if _, err := Start(spec, Options{}); !errors.As(err, &missing) || missing.Input.ID != "key" ||
		!strings.Contains(err.Error(), "${input:key} (API key)") {
		t.Errorf("Start with an input unanswered: %v", err)
	}
	if _, err := spec.WithInputs(nil); !errors.As(err, &missing) {
		t.Errorf("WithInputs(nil): %v", err)
	}
	filled, err := spec.WithInputs(map[string]string{"key": "k-123"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(filled.Args, []string{"--key=k-123"}) || !slices.Equal(filled.Env, []string{"K=k-123"}) || len(filled.Inputs) != 0 {
		t.Errorf("filled %+v", filled)
	}
	if !slices.Equal(spec.Args, []string{"--key=" + inputRef("key")}) {
		t.Errorf("WithInputs changed the original: %q", spec.Args)
	}
	if _, err := s.Get("typo"); err == nil || !strings.Contains(err.Error(), `${input:kee} names no entry`) {
		t.Errorf("unknown input: %v", err)
	}
}

func TestVSCodeSettingsInputs(t *testing.T) {
	s, err := ParseConfigVars([]byte(`{"mcp": {
		"inputs": [{"type": "pickString", "id": "region", "options": ["eu", "us"], "default": "eu"}],
		"servers": {"x": {"command": "srv", "args": ["${input:region}"]}}}}`), testVars(t))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Get("x")
	if err != nil || len(spec.Inputs) != 1 || !slices.Equal(spec.Inputs[0].Options, []string{"eu", "us"}) {
		t.Errorf("spec %+v, %v", spec, err)
	}
}

package connect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func loadFixture(t *testing.T, name string) Servers {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "config", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClaudeDesktopConfig(t *testing.T) {
	s := loadFixture(t, "claude.json")
	if got := s.Names(); !slices.Equal(got, []string{"everything", "files", "remote"}) {
		t.Fatalf("names %v", got)
	}
	spec, err := s.Get("everything")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name != "everything" || spec.Command != "npx" || !slices.Equal(spec.Args, []string{"-y", "@modelcontextprotocol/server-everything"}) ||
		!slices.Equal(spec.Env, []string{"API_KEY=x", "LOG_LEVEL=debug"}) {
		t.Errorf("spec %+v", spec)
	}
	if spec, _ := s.Get("files"); spec.Dir != "/tmp" {
		t.Errorf("cwd not kept: %+v", spec)
	}
	if r, err := s.Get("remote"); err != nil || r.URL == "" {
		t.Errorf("url server: %+v %v", r, err)
	}
}

func TestVSCodeConfigWithCommentsAndTrailingCommas(t *testing.T) {
	s := loadFixture(t, "vscode-mcp.json")
	spec, err := s.Get("everything")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Command != "node" || !slices.Equal(spec.Args, []string{"dist/index.js", "stdio"}) || !slices.Equal(spec.Env, []string{"URL=http://x//y"}) {
		t.Errorf("spec %+v", spec)
	}
	if g, err := s.Get("github"); err != nil || g.URL == "" || g.Transport != "http" {
		t.Errorf("http server: %+v %v", g, err)
	}
}

func TestVSCodeSettingsConfig(t *testing.T) {
	s := loadFixture(t, "vscode-settings.json")
	if spec, err := s.Get("demo"); err != nil || spec.Command != "mcpoke" {
		t.Fatalf("%+v %v", spec, err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`{}`, `no servers in the config`},
		{`[1,2]`, `not a JSON config file`},
		{`{"mcpServers": {"x": {"args": ["a"]}}}`, `server "x" in the config has no "command"`},
		{`{"servers": {"x": {"type": "sse", "command": "y"}}}`, `has type "sse" but no "url"`},
		{`{"mcpServers": {"x": {"command": "y", "env": {"N": 1}}}}`, `server "x" in the config is not usable`},
	} {
		s, err := ParseConfig([]byte(tc.config))
		if err == nil {
			_, err = s.Get("x")
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.config, err, tc.want)
		}
	}
}

func TestLoadServer(t *testing.T) {
	path := filepath.Join("testdata", "config", "claude.json")
	if spec, err := LoadServer(path, "files"); err != nil || spec.Command != "mcp-files" {
		t.Fatalf("%+v %v", spec, err)
	}
	for _, tc := range []struct{ path, name, want string }{
		{path, "everythng", `no server "everythng" in the config; it has: "everything", "files", "remote" (did you mean "everything"?)`},
		{path, "", `has 3 servers; pick one with --server NAME: "everything", "files", "remote"`},
		{"testdata/config/nope.json", "x", `config file testdata/config/nope.json does not exist`},
	} {
		_, err := LoadServer(tc.path, tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadServer(%s, %q): %v, want %q", tc.path, tc.name, err, tc.want)
		}
	}
	// One server needs no --server.
	if spec, err := LoadServer(filepath.Join("testdata", "config", "vscode-settings.json"), ""); err != nil || spec.Name != "demo" {
		t.Errorf("single server: %+v %v", spec, err)
	}
}

func TestStripJSONC(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1, // c` + "\n" + `}`: `{"a": 1      ` + "\n" + `}`,
		`[1, /* x */ 2,]`:            `[1,         2 ]`,
		`{"s": "a//b,}"}`:            `{"s": "a//b,}"}`,
		`{"s": "q\"//"}`:             `{"s": "q\"//"}`,
		`[1,, ]`:                     `[1,  ]`,
	} {
		if got := string(stripJSONC([]byte(in))); got != want {
			t.Errorf("stripJSONC(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	s := CommandSpec([]string{"node", "a b.js", "stdio"})
	if s.Name != "node" || s.CommandLine() != `node "a b.js" stdio` {
		t.Errorf("%+v %s", s, s.CommandLine())
	}
}

func TestConfigOAuthClient(t *testing.T) {
	s, err := ParseConfigVars([]byte(`{"mcpServers": {"remote": {"url": "https://mcp.example/mcp",
		"oauth": {"clientId": "my-app", "clientSecret": "${env:SECRET}"}}}}`), Vars{LookupEnv: func(k string) (string, bool) { return map[string]string{"SECRET": "s3"}[k], k == "SECRET" }})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Get("remote")
	if err != nil || spec.ClientID != "my-app" || spec.ClientSecret != "s3" {
		t.Fatalf("spec %+v, %v; want client my-app with the expanded secret", spec, err)
	}
}

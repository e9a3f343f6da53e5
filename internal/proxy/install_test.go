package proxy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// hostConfigs are configs as each host writes them, with the server
// "srv" whose command the proxy wraps.
var hostConfigs = map[string]string{
	"claude-desktop": `{
  "mcpServers": {
    "srv": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "env": {"TOKEN": "x"}
    },
    "other": {"command": "uvx", "args": ["other"]}
  },
  "globalShortcut": "Ctrl+Space"
}
`,
	"cursor": `{"mcpServers":{"srv":{"command":"node","args":["/opt/s.js","--flag=<a&b>"],"env":{}}}}`,
	"vscode-mcp.json": `// VS Code's mcp.json
{
  "inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": true}],
  "servers": {
    /* the one to watch */
    "srv": {
      "type": "stdio",
      "command": "python", // the interpreter
      "args": [
        "-m", "srv", // the module
      ],
      "env": {"KEY": "${input:key}"},
    },
  },
}
`,
	"vscode-settings.json": `{
  "editor.fontSize": 14, // mine
  "mcp": {
    "servers": {
      "srv": {"command": "srv-bin"}
    }
  }
}
`,
	"claude-code-.mcp.json": `{
  "mcpServers": {
    "srv": {"type": "stdio", "command": "uvx", "args": ["mcp-server-x", "--dir", "C:\\Users\\me"], "env": {}}
  }
}
`,
}

func specOf(t *testing.T, config []byte) connect.Spec {
	t.Helper()
	servers, err := connect.ParseConfigVars(config, connect.Vars{})
	if err != nil {
		t.Fatalf("the edited config does not parse: %v\n%s", err, config)
	}
	spec, err := servers.Get("srv")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestInstallRoundTripsEachHostsConfig(t *testing.T) {
	for host, text := range hostConfigs {
		t.Run(host, func(t *testing.T) {
			orig := specOf(t, []byte(text))
			in, err := InstallStdio([]byte(text), "srv", "/usr/local/bin/mcpoke")
			if err != nil || in.Unchanged != "" {
				t.Fatalf("install: %v %q", err, in.Unchanged)
			}
			got := specOf(t, in.New)
			want := append([]string{"proxy", "--name", "srv", "--", orig.Command}, orig.Args...)
			if got.Command != "/usr/local/bin/mcpoke" || !reflect.DeepEqual(got.Args, want) || !reflect.DeepEqual(got.Env, orig.Env) {
				t.Errorf("installed entry runs %s %q with env %q; want mcpoke %q with env %q", got.Command, got.Args, got.Env, want, orig.Env)
			}
			for _, keep := range []string{"// VS Code's mcp.json", "/* the one to watch */", "// the interpreter", "// mine", `"globalShortcut"`, `"inputs"`, `"other"`} {
				if strings.Contains(text, keep) && !strings.Contains(string(in.New), keep) {
					t.Errorf("install lost %s", keep)
				}
			}
			again, err := InstallStdio(in.New, "srv", "/usr/local/bin/mcpoke")
			if err != nil || again.Unchanged == "" || string(again.New) != string(in.New) {
				t.Errorf("installing twice changed the config (%v): %s", err, again.New)
			}
			out, err := Uninstall(in.New, "srv")
			if err != nil || out.Unchanged != "" {
				t.Fatalf("uninstall: %v %q", err, out.Unchanged)
			}
			back := specOf(t, out.New)
			if back.Command != orig.Command || !reflect.DeepEqual(back.Args, orig.Args) && len(orig.Args)+len(back.Args) > 0 {
				t.Errorf("uninstalled entry runs %s %q, want the original %s %q", back.Command, back.Args, orig.Command, orig.Args)
			}
			if d := in.Diff("cfg"); !strings.Contains(d, "+") || !strings.Contains(d, "mcpoke") {
				t.Errorf("diff does not show the change:\n%s", d)
			}
		})
	}
}

func TestInstallRefusesWhatItCannotDo(t *testing.T) {
	for _, c := range []struct{ config, want string }{
		{`{"mcpServers": {"srv": {"command": "x"}`, "does not parse"},
		{`{"mcpServers": {"a": {"command": "x"}}}`, `no server "srv" in the config; it has: a`},
		{`{"mcpServers": {"srv": {"url": "http://127.0.0.1:3001/mcp"}}}`, "reached over HTTP"},
		{`{"mcpServers": {"srv": {"command": "x", "args": "not a list"}}}`, "not a list of strings"},
		{`{"other": 1}`, "no servers in the config"},
		{`{"mcpServers": {"srv": {"command": "x"}} /* open`, "comment that never ends"},
	} {
		if _, err := InstallStdio([]byte(c.config), "srv", "mcpoke"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("install in %s: %v, want an error with %q", c.config, err, c.want)
		}
	}
	if e, err := Uninstall([]byte(hostConfigs["cursor"]), "srv"); err != nil || e.Unchanged == "" {
		t.Errorf("uninstall of an entry never installed: %v, %q; want it left alone with a word", err, e.Unchanged)
	}
}

package proxy

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// httpHostConfigs are configs with an HTTP entry "srv", as each host
// writes them.
var httpHostConfigs = map[string]string{
	"claude-desktop": `{
  "mcpServers": {
    "srv": {"url": "https://api.example.com/mcp?team=a&x=1", "headers": {"Authorization": "Bearer tok"}},
    "other": {"command": "uvx", "args": ["other"]}
  },
  "globalShortcut": "Ctrl+Space"
}
`,
	"cursor": `{"mcpServers":{"srv":{"url":"http://127.0.0.1:3001/mcp","headers":{"X-Key":"k"}}}}`,
	"vscode-mcp.json": `// VS Code's mcp.json
{
  "inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": true}],
  "servers": {
    /* the remote one */
    "srv": {
      "type": "http",
      "url": "https://mcp.example.com/v1/mcp", // the team's server
      "headers": {"Authorization": "Bearer ${input:key}"},
    },
  },
}
`,
	"claude-code-.mcp.json": `{
  "mcpServers": {
    "srv": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer tok"}}
  }
}
`,
}

func TestInstallHTTPRoundTripsEachHostsConfig(t *testing.T) {
	for host, text := range httpHostConfigs {
		t.Run(host, func(t *testing.T) {
			orig := specOf(t, []byte(text))
			in, err := Install([]byte(text), "srv", "/usr/local/bin/mcpoke", "127.0.0.1:8931")
			if err != nil || in.Unchanged != "" {
				t.Fatalf("install: %v %q", err, in.Unchanged)
			}
			got := specOf(t, in.New)
			u, err := url.Parse(got.URL)
			o, _ := url.Parse(orig.URL)
			if err != nil || u.Scheme != "http" || u.Host != "127.0.0.1:8931" || u.Path != o.Path || u.RawQuery != o.RawQuery {
				t.Errorf("installed url %q; want http://127.0.0.1:8931 with the path and query of %q", got.URL, orig.URL)
			}
			if !reflect.DeepEqual(got.Headers, orig.Headers) {
				t.Errorf("headers %q, want %q kept", got.Headers, orig.Headers)
			}
			want := "/usr/local/bin/mcpoke proxy --name srv --url '" + orig.URL + "' --listen 127.0.0.1:8931"
			if !strings.Contains(orig.URL, "&") {
				want = "/usr/local/bin/mcpoke proxy --name srv --url " + orig.URL + " --listen 127.0.0.1:8931"
			}
			if in.Start != want {
				t.Errorf("start command %q, want %q", in.Start, want)
			}
			// Only the url's value changed.
			if strings.Replace(string(in.New), string(marshalLine(got.URL)), string(marshalLine(orig.URL)), 1) != text {
				t.Errorf("install changed more than the url:\n%s", in.New)
			}
			again, err := Install(in.New, "srv", "/usr/local/bin/mcpoke", "127.0.0.1:9999")
			if err != nil || again.Unchanged == "" || string(again.New) != string(in.New) || again.Start != in.Start {
				t.Errorf("installing twice changed the config (%v, start %q): %s", err, again.Start, again.New)
			}
			out, err := Uninstall(in.New, "srv")
			if err != nil || out.Unchanged != "" {
				t.Fatalf("uninstall: %v %q", err, out.Unchanged)
			}
			if string(out.New) != text {
				t.Errorf("uninstall did not restore the config:\n%s\nwant\n%s", out.New, text)
			}
			if e, err := Uninstall(out.New, "srv"); err != nil || e.Unchanged == "" {
				t.Errorf("uninstalling twice: %v %q; want nothing to change", err, e.Unchanged)
			}
		})
	}
}

func TestInstallHTTPRefuses(t *testing.T) {
	cfg := []byte(`{"mcpServers": {"srv": {"url": "http://127.0.0.1:3001/mcp"}}}`)
	for listen, want := range map[string]string{
		"":             "--listen 127.0.0.1:PORT",
		"0.0.0.0:8931": "not a loopback address",
		"127.0.0.1":    "want host:port",
	} {
		if _, err := Install(cfg, "srv", "mcpoke", listen); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("install with --listen %q: %v, want an error with %q", listen, err, want)
		}
	}
	if _, err := Install([]byte(`{"mcpServers": {"srv": {"url": "ftp://x/mcp"}}}`), "srv", "mcpoke", "127.0.0.1:1"); err == nil {
		t.Error("an ftp url was installed")
	}
}

package ui

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// A url elicitation whose URL is not https (nor http to this machine) is
// shown, escaped, with a warning; "open" refuses it and no browser ever
// starts; the person can still accept or decline.
func TestURLElicitationNeverOpensOtherSchemes(t *testing.T) {
	for name, tc := range map[string]struct{ url, warning string }{
		"javascript with a host": {`javascript://x/%0aalert(document.cookie)`, `scheme "javascript"; mcpoke never opens it`},
		"javascript":             {`javascript:alert(1)`, `scheme "javascript"; mcpoke never opens it`},
		"file":                   {`file:///etc/passwd`, `scheme "file"; mcpoke never opens it`},
		"plain http elsewhere":   {`http://bank.example/login`, `plain http to another machine; mcpoke never opens it`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			opened := filepath.Join(dir, "opened")
			script := filepath.Join(dir, "browser")
			if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+opened+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("BROWSER", script)
			d, as := newAnsweringModel(t, 140, 30, mcp.Policy{})
			c := as.ask(t, "elicitation/create", `{"mode":"url","message":"Link your account","url":"`+tc.url+`","elicitationId":"e-1"}`)
			d.waitScreen("elicitation (url) #1", "⚠ "+tc.warning)
			d.key("o")
			d.waitScreen("not opened: " + tc.warning)
			if d.m.asks.panel == nil {
				t.Fatal("the panel closed on a refused open")
			}
			d.key("ctrl+x")
			if res, err := d.outcome(c); err != nil || string(res) != `{"action":"decline"}` {
				t.Fatalf("result %s %v; want the decline", res, err)
			}
			time.Sleep(100 * time.Millisecond) // a browser started by mistake would have written by now
			if got, err := os.ReadFile(opened); err == nil {
				t.Fatalf("the browser was started on %q", got)
			}
		})
	}
}

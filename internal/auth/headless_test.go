//go:build unix

package auth

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A $BROWSER that exits non-zero has failed, and says so; one that
// exits 0 or keeps running has opened the page.
func TestOpenBrowserReportsAFailingCommand(t *testing.T) {
	t.Setenv("BROWSER", "false")
	if err := OpenBrowser("http://127.0.0.1/x"); err == nil || !strings.Contains(err.Error(), `the browser command "false" failed: exit status 1`) {
		t.Fatalf("BROWSER=false: %v", err)
	}
	t.Setenv("BROWSER", "true")
	if err := OpenBrowser("http://127.0.0.1/x"); err != nil {
		t.Fatalf("BROWSER=true: %v", err)
	}
	t.Setenv("BROWSER", "sleep 30 %s")
	start := time.Now()
	if err := OpenBrowser("5"); err != nil {
		t.Fatalf("a browser that keeps running: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("OpenBrowser waited %s for a browser that keeps running", d)
	}
}

// A headless login with no browser and no terminal fails at once with
// how to log in, instead of waiting LoginTimeout for nobody.
func TestHeadlessLoginWithNobodyFailsAtOnce(t *testing.T) {
	a := newTestAS(t)
	var out bytes.Buffer
	prompt := &TerminalPrompter{Out: &out, NoBrowser: true} // no In: no terminal
	store := &Store{Path: filepath.Join(t.TempDir(), "mcpoke", "credentials.json")}
	p := New(Config{ServerURL: a.serverURL(), Store: store, Prompt: prompt})
	done := make(chan error, 1)
	go func() {
		_, err := p.Challenged(context.Background(), "", unauthorized(`resource_metadata="`+a.rs.URL+`/.well-known/oauth-protected-resource/mcp"`))
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the login still waits after 10s for nobody")
	}
	if !errors.Is(err, ErrNobodyToLogIn) {
		t.Fatalf("err = %v, want ErrNobodyToLogIn", err)
	}
	if s := out.String(); !strings.Contains(s, "mcpoke auth login") || !strings.Contains(s, "login failed") {
		t.Fatalf("the prompter said:\n%s", s)
	}
}

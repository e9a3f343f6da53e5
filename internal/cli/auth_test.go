package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/auth"
	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/session"
)

// followingBrowser is a person who logs in at once: it follows the login
// address to mcpoke's loopback listener.
type followingBrowser struct {
	t      *testing.T
	mu     sync.Mutex
	logins int
	done   []error
}

func (b *followingBrowser) ShowLogin(_ context.Context, _, authURL string) <-chan string {
	b.mu.Lock()
	b.logins++
	b.mu.Unlock()
	go func() {
		resp, err := http.Get(authURL)
		if err != nil {
			b.t.Errorf("following the login address: %v", err)
			return
		}
		resp.Body.Close()
	}()
	return nil
}

func (b *followingBrowser) LoginDone(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = append(b.done, err)
}

// TestLoginToTheDemoServerWithOAuth: the demo server with --oauth asks
// for a login on initialize; mcpoke logs in (registration, PKCE, the
// loopback redirect), the handshake and tools/list go through in the same
// connection, the tokens are saved 0600, and the next run uses them
// without a login.
func TestLoginToTheDemoServerWithOAuth(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &buffertest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- serveDemoHTTP(ctx, stderr, demoServerFlags{http: "127.0.0.1:0", oauth: true}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the demo server did not stop within 10s of its context ending")
		}
	})
	re := regexp.MustCompile(`Streamable HTTP at (http://\S+/mcp)\n`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no URL on stderr: %q", stderr.String())
		}
		m = re.FindStringSubmatch(stderr.String())
	}
	spec := connect.URLSpec(m[1])
	g := testGlobals()

	list := func(b *followingBrowser) {
		t.Helper()
		p, err := newAuthorizer(g, spec, b, false)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := openServer(testContext(t), g, spec, serverOptions{auth: p})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer conn.Close()
		res, err := conn.Session.Do(testContext(t), "tools/list", nil, session.CallOptions{Timeout: 10 * time.Second})
		if err != nil || !strings.Contains(string(res), `"sleep"`) {
			t.Fatalf("tools/list = %s, %v", res, err)
		}
	}
	first := &followingBrowser{t: t}
	list(first)
	if first.logins != 1 || len(first.done) != 1 || first.done[0] != nil {
		t.Fatalf("first run: %d logins, outcomes %v; want one that succeeded", first.logins, first.done)
	}
	path := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "mcpoke", "credentials.json")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v, %v; want mode 0600", st, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"access_token": "demo-at-`) {
		t.Errorf("no token saved:\n%s", data)
	}

	second := &followingBrowser{t: t}
	list(second)
	if second.logins != 0 {
		t.Errorf("second run logged in %d times; want the saved token used", second.logins)
	}
}

// A headless command whose server wants a login, with no browser and no
// terminal, fails at once with exit 2 and says how to log in.
func TestHeadlessLoginWithNobodyExits2(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &buffertest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- serveDemoHTTP(ctx, stderr, demoServerFlags{http: "127.0.0.1:0", oauth: true}) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	re := regexp.MustCompile(`Streamable HTTP at (http://\S+/mcp)\n`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no URL on stderr: %q", stderr.String())
		}
		m = re.FindStringSubmatch(stderr.String())
	}
	spec := connect.URLSpec(m[1])
	g := testGlobals()
	var out strings.Builder
	p, err := newAuthorizer(g, spec, &auth.TerminalPrompter{Out: &out, NoBrowser: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	conn, err := openServer(testContext(t), g, spec, serverOptions{auth: p})
	if err == nil {
		conn.Close()
		t.Fatal("connected without a login")
	}
	if exitStatus(err) != ExitUsage || !strings.Contains(err.Error(), "mcpoke auth login") {
		t.Fatalf("exit %d: %v", exitStatus(err), err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the login waited %s for nobody", d)
	}
	if n := strings.Count(out.String(), "Open this address"); n != 1 {
		t.Fatalf("the login address was shown %d times:\n%s", n, out.String())
	}
}

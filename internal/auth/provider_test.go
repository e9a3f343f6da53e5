package auth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func newTestProvider(t *testing.T, a *testAS, b *browser) (*Provider, *Store) {
	t.Helper()
	store := &Store{Path: filepath.Join(t.TempDir(), "mcpoke", "credentials.json")}
	return New(Config{ServerURL: a.serverURL(), Store: store, Prompt: b}), store
}

// loginWait bounds a test's login, far below LoginTimeout: a login the
// test server refused must end at once, not when nobody logged in.
const loginWait = 20 * time.Second

// loginCtx is a test's context for a login (Challenged can log in): it
// ends after loginWait, saying so.
func loginCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeoutCause(context.Background(), loginWait, fmt.Errorf("the login did not end within %s", loginWait))
	t.Cleanup(cancel)
	return ctx
}

func mustLogIn(t *testing.T, p *Provider, resp string) {
	t.Helper()
	retry, err := p.Challenged(loginCtx(t), "", unauthorized(resp))
	if err != nil || !retry {
		t.Fatalf("Challenged = %v, %v; want a login and a retry", retry, err)
	}
}

// The login sends an S256 code challenge; a server that refuses the
// challenge redirects with an error, and the login ends at once with it
// instead of waiting out LoginTimeout.
func TestLoginChallengeIsS256AndARefusalEndsAtOnce(t *testing.T) {
	a := newTestAS(t)
	p, _ := newTestProvider(t, a, &browser{})
	mustLogIn(t, p, "")
	if q := a.authRequests[0]; q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
		t.Errorf("authorization request %v; want an S256 challenge (43 characters of base64url)", q)
	}

	a = newTestAS(t)
	a.refusePKCE = true
	p, _ = newTestProvider(t, a, &browser{})
	start := time.Now()
	_, err := p.Challenged(loginCtx(t), "", unauthorized(""))
	if err == nil || !strings.Contains(err.Error(), "invalid_request") || !strings.Contains(err.Error(), "PKCE S256 required") {
		t.Fatalf("err = %v; want the server's refusal of the challenge", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refused login took %v; want it to end at once", d)
	}
}

func TestLoginThroughLoopback(t *testing.T) {
	a := newTestAS(t)
	b := &browser{}
	p, store := newTestProvider(t, a, b)
	if h := p.Authorization(context.Background()); h != "" {
		t.Fatalf("Authorization before any login = %q; want none", h)
	}
	mustLogIn(t, p, `resource_metadata="`+a.rs.URL+`/.well-known/oauth-protected-resource/mcp", scope="files:read"`)
	if h := p.Authorization(context.Background()); !strings.HasPrefix(h, "Bearer at-") {
		t.Fatalf("Authorization after login = %q; want a bearer token", h)
	}
	q := a.authRequests[0]
	if q.Get("resource") != a.serverURL() || q.Get("scope") != "files:read" || q.Get("state") == "" {
		t.Errorf("authorization request %v; want resource %s, scope files:read and a state", q, a.serverURL())
	}
	if tq := a.tokenRequests[0]; tq.Get("resource") != a.serverURL() {
		t.Errorf("token request resource = %q; want %q", tq.Get("resource"), a.serverURL())
	}
	reg := a.registrations[0]
	if reg.Get("application_type") != "native" || !slices.Contains(reg["grant_types"], "refresh_token") ||
		!strings.HasPrefix(reg.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Errorf("registration %v; want native, refresh_token and a loopback redirect", reg)
	}
	// The mode as the login wrote it: Lookup would fix a wrong one.
	st, _ := os.Stat(store.Path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("credentials file mode %04o; want 0600", st.Mode().Perm())
	}
	e, err := store.Lookup(a.srv.URL, a.serverURL())
	if err != nil || e.AccessToken == "" || e.RefreshToken == "" || !strings.HasPrefix(e.ClientID, "client-") {
		t.Fatalf("saved entry %+v, %v; want the tokens and the registered client", e, err)
	}
}

func TestPasteFallback(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paste func(loc string) string
	}{
		{"whole address", func(loc string) string { return loc + "\n" }},
		{"bare code", func(loc string) string {
			_, u, ok := strings.Cut(loc, "code=")
			if !ok {
				return loc // the server refused: paste what it said
			}
			u, _, _ = strings.Cut(u, "&")
			return u
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAS(t)
			b := &browser{paste: true, pasted: tc.paste}
			p, _ := newTestProvider(t, a, b)
			mustLogIn(t, p, "")
			if h := p.Authorization(context.Background()); !strings.HasPrefix(h, "Bearer at-") {
				t.Fatalf("Authorization after a pasted login = %q", h)
			}
		})
	}
}

func TestIssMismatchRefusesTheCode(t *testing.T) {
	a := newTestAS(t)
	a.iss = "https://evil.example"
	b := &browser{}
	p, _ := newTestProvider(t, a, b)
	retry, err := p.Challenged(loginCtx(t), "", unauthorized(""))
	if retry || err == nil || !strings.Contains(err.Error(), "RFC 9207") {
		t.Fatalf("Challenged = %v, %v; want a refusal naming RFC 9207", retry, err)
	}
	if len(a.tokenRequests) != 0 {
		t.Errorf("the code was redeemed %d times; want never", len(a.tokenRequests))
	}
}

func TestMissingIssWhenAdvertised(t *testing.T) {
	a := newTestAS(t)
	a.iss, a.issAdvertised = "", true
	p, _ := newTestProvider(t, a, &browser{})
	if _, err := p.Challenged(loginCtx(t), "", unauthorized("")); err == nil || !strings.Contains(err.Error(), "iss") {
		t.Fatalf("err = %v; want a refusal for the missing iss", err)
	}
}

func TestRefusesServerWithoutS256(t *testing.T) {
	a := newTestAS(t)
	a.noS256 = true
	p, _ := newTestProvider(t, a, &browser{})
	if _, err := p.Challenged(loginCtx(t), "", unauthorized("")); err == nil || !strings.Contains(err.Error(), "PKCE") {
		t.Fatalf("err = %v; want a refusal for no PKCE S256", err)
	}
	if len(a.authRequests) != 0 {
		t.Errorf("%d authorization requests; want none", len(a.authRequests))
	}
}

func TestRefreshRotatesAndSaves(t *testing.T) {
	a := newTestAS(t)
	now := time.Now()
	p, store := newTestProvider(t, a, &browser{})
	p.cfg.Now = func() time.Time { return now }
	mustLogIn(t, p, "")
	first := p.Authorization(context.Background())
	old, _ := store.Lookup("", a.serverURL())

	now = now.Add(2 * time.Hour) // past expires_in
	second := p.Authorization(context.Background())
	if second == first || !strings.HasPrefix(second, "Bearer at-") {
		t.Fatalf("after expiry Authorization = %q (before %q); want a refreshed token", second, first)
	}
	e, _ := store.Lookup("", a.serverURL())
	if e.RefreshToken == old.RefreshToken || e.AccessToken == old.AccessToken {
		t.Errorf("saved refresh token %q (was %q): the rotated one was not saved", e.RefreshToken, old.RefreshToken)
	}
	last := a.tokenRequests[len(a.tokenRequests)-1]
	if last.Get("grant_type") != "refresh_token" || last.Get("resource") != a.serverURL() {
		t.Errorf("refresh request %v; want grant_type refresh_token with the resource", last)
	}

	// A new process finds the saved grant.
	p2 := New(Config{ServerURL: a.serverURL(), Store: store, Prompt: &browser{}})
	if h := p2.Authorization(context.Background()); h != second {
		t.Errorf("a new provider sends %q; want the saved %q", h, second)
	}
}

func TestRefreshFailureFallsBackToLogin(t *testing.T) {
	a := newTestAS(t)
	b := &browser{}
	p, _ := newTestProvider(t, a, b)
	mustLogIn(t, p, "")
	a.refreshFails = true
	p.entry.Expiry = time.Now().Add(-time.Minute)
	if h := p.Authorization(context.Background()); h != "" {
		t.Fatalf("Authorization after a failed refresh = %q; want none, so that the server asks again", h)
	}
	mustLogIn(t, p, "")
	if len(b.shown) != 2 {
		t.Errorf("%d logins shown; want 2 (the first and the one after the failed refresh)", len(b.shown))
	}
	if h := p.Authorization(context.Background()); !strings.HasPrefix(h, "Bearer at-") {
		t.Errorf("Authorization after the new login = %q", h)
	}
}

func TestStepUpAsksForTheUnionAndStopsAtThree(t *testing.T) {
	a := newTestAS(t)
	p, _ := newTestProvider(t, a, &browser{})
	mustLogIn(t, p, `scope="read"`)
	sent := p.Authorization(context.Background())
	retry, err := p.Challenged(loginCtx(t), sent, forbidden(`error="insufficient_scope", scope="write"`))
	if err != nil || !retry {
		t.Fatalf("step-up = %v, %v", retry, err)
	}
	if got := a.authRequests[1].Get("scope"); got != "read write" {
		t.Errorf("step-up scope = %q; want %q", got, "read write")
	}
	if st := p.State(); st.Phase != "logged in" || !slices.Equal(st.Scopes, []string{"read", "write"}) {
		t.Errorf("state %+v", st)
	}
	// A 403 to a request sent with the token before the step-up: the
	// new token is tried first, with no login.
	if retry, err := p.Challenged(loginCtx(t), "Bearer stale", forbidden(`error="insufficient_scope", scope="write"`)); !retry || err != nil {
		t.Errorf("403 for an older token: %v, %v; want a retry with the new one", retry, err)
	}
	sent = p.Authorization(context.Background())
	// A plain 403 is no reason to log in.
	if retry, err := p.Challenged(loginCtx(t), sent, forbidden(`error="access_denied"`)); retry || err != nil {
		t.Errorf("plain 403: %v, %v; want no retry, no error", retry, err)
	}
	p.Challenged(loginCtx(t), sent, forbidden(`error="insufficient_scope", scope="admin"`))
	retry, err = p.Challenged(loginCtx(t), p.Authorization(context.Background()), forbidden(`error="insufficient_scope", scope="root"`))
	if retry || err == nil {
		t.Fatalf("fourth authorization = %v, %v; want a refusal", retry, err)
	}
	if len(a.authRequests) != 3 {
		t.Errorf("%d authorization requests; want at most 3", len(a.authRequests))
	}
}

func TestIssuerChangeRegistersAgain(t *testing.T) {
	old := newTestAS(t)
	p, store := newTestProvider(t, old, &browser{})
	mustLogIn(t, p, "")
	oldEntry, _ := store.Lookup("", old.serverURL())

	// The same MCP server now names another authorization server.
	next := newTestAS(t)
	moved := oldEntry
	moved.Server = next.serverURL()
	moved.Resource = next.serverURL()
	if err := store.Save(moved); err != nil {
		t.Fatal(err)
	}
	p2 := New(Config{ServerURL: next.serverURL(), Store: store, Prompt: &browser{}})
	sent := p2.Authorization(context.Background())
	if sent == "" {
		t.Fatal("the saved token of the old issuer is not even tried")
	}
	retry, err := p2.Challenged(loginCtx(t), sent, unauthorized(""))
	if err != nil || !retry {
		t.Fatalf("login at the new issuer: %v, %v", retry, err)
	}
	if len(old.tokenRequests) != 1 {
		t.Errorf("%d token requests at the old issuer; want only the first login's (no refresh there)", len(old.tokenRequests))
	}
	if len(next.registrations) != 1 {
		t.Errorf("%d registrations at the new issuer; want 1", len(next.registrations))
	}
	if slices.Contains(next.clientIDsSeen, oldEntry.ClientID) {
		t.Errorf("the old issuer's client %q was used at the new one", oldEntry.ClientID)
	}
	e, err := store.Lookup(next.srv.URL, next.serverURL())
	if err != nil || e.Issuer != next.srv.URL {
		t.Errorf("entry at the new issuer: %+v, %v", e, err)
	}
	if _, err := store.Lookup(old.srv.URL, next.serverURL()); err != nil {
		t.Errorf("the old issuer's entry is gone (%v); it is keyed apart", err)
	}
}

func TestGroupReadableFileIsFixed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "credentials.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"entries":[]}`), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640)
	var warned []string
	s := &Store{Path: path, Warn: func(m string) { warned = append(warned, m) }}
	if _, err := s.List(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o after reading; want 0600", st.Mode().Perm())
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "0640") {
		t.Errorf("warnings %q; want one naming mode 0640", warned)
	}
}

func TestStateMismatchRefused(t *testing.T) {
	a := newTestAS(t)
	b := &browser{paste: true, pasted: func(loc string) string {
		return strings.Replace(loc, "state=", "state=forged", 1)
	}}
	p, _ := newTestProvider(t, a, b)
	if _, err := p.Challenged(loginCtx(t), "", unauthorized("")); err == nil || !strings.Contains(err.Error(), "state") {
		t.Fatalf("err = %v; want a state mismatch", err)
	}
}

// stuckPrompter shows a login and waits: nobody ever logs in.
type stuckPrompter struct {
	shown chan struct{}
	paste chan string
}

func (s *stuckPrompter) ShowLogin(context.Context, string, string) <-chan string {
	close(s.shown)
	return s.paste
}

func (s *stuckPrompter) LoginDone(error) {}

// TestRequestsDoNotWaitForAPerson: while a login waits in the browser,
// other requests (a close's DELETE) get their header at once; closing
// the paste channel cancels the login.
func TestRequestsDoNotWaitForAPerson(t *testing.T) {
	a := newTestAS(t)
	sp := &stuckPrompter{shown: make(chan struct{}), paste: make(chan string)}
	p := New(Config{ServerURL: a.serverURL(), Prompt: sp})
	done := make(chan error, 1)
	go func() {
		_, err := p.Challenged(loginCtx(t), "", unauthorized(""))
		done <- err
	}()
	select {
	case <-sp.shown:
	case <-time.After(loginWait):
		t.Fatalf("the login was not shown within %s", loginWait)
	}
	if !p.LoggingIn() {
		t.Error("LoggingIn is false while the login is shown")
	}
	if h := p.Authorization(context.Background()); h != "" {
		t.Errorf("Authorization during the first login = %q; want none", h)
	}
	if st := p.State(); st.Phase != "logging in" {
		t.Errorf("state %+v; want logging in", st)
	}
	close(sp.paste)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("login ended with %v; want cancelled", err)
		}
	case <-time.After(loginWait):
		t.Fatalf("the login did not end within %s of its paste channel closing", loginWait)
	}
}

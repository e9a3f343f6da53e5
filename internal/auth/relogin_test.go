package auth

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loseTokens makes p's next Authorization drop its tokens, as a refresh
// the server refuses does: the client stays, the grant goes.
func loseTokens(t *testing.T, a *testAS, p *Provider) {
	t.Helper()
	a.mu.Lock()
	a.refreshFails = true
	a.mu.Unlock()
	p.entry.Expiry = time.Now().Add(-time.Minute)
	if h := p.Authorization(context.Background()); h != "" {
		t.Fatalf("Authorization after a refused refresh = %q; want none", h)
	}
}

// A second login at the same issuer reuses the client registered for
// the first: it listens on the same loopback port, so the registered
// redirect URI still holds, and registers nothing new. The client comes
// from the provider itself (no credentials file) or from the file (a new
// process that ignores the saved tokens).
func TestLoginAgainReusesTheRegistration(t *testing.T) {
	check := func(t *testing.T, a *testAS) {
		t.Helper()
		if len(a.registrations) != 1 {
			t.Errorf("%d registrations; want 1, the second login reusing the first's client", len(a.registrations))
		}
		if len(a.authRequests) != 2 {
			t.Fatalf("%d authorization requests; want 2", len(a.authRequests))
		}
		first, second := a.authRequests[0], a.authRequests[1]
		if first.Get("redirect_uri") != second.Get("redirect_uri") || first.Get("client_id") != second.Get("client_id") {
			t.Errorf("second login: client %s, redirect %s; want the first's %s, %s",
				second.Get("client_id"), second.Get("redirect_uri"), first.Get("client_id"), first.Get("redirect_uri"))
		}
	}
	t.Run("in memory", func(t *testing.T) {
		a := newTestAS(t)
		p := New(Config{ServerURL: a.serverURL(), Prompt: &browser{}})
		mustLogIn(t, p, "")
		loseTokens(t, a, p)
		mustLogIn(t, p, "")
		check(t, a)
	})
	t.Run("saved", func(t *testing.T) {
		a := newTestAS(t)
		p, store := newTestProvider(t, a, &browser{})
		mustLogIn(t, p, "")
		fresh := New(Config{ServerURL: a.serverURL(), Store: store, Prompt: &browser{}, Fresh: true})
		mustLogIn(t, fresh, "")
		check(t, a)
	})
}

// When the port of the registered redirect URI is taken, the login
// listens on another one (and so registers again) instead of failing.
func TestLoginAgainWhenTheRedirectPortIsTaken(t *testing.T) {
	a := newTestAS(t)
	p := New(Config{ServerURL: a.serverURL(), Prompt: &browser{}})
	mustLogIn(t, p, "")
	loseTokens(t, a, p)
	u, err := url.Parse(a.authRequests[0].Get("redirect_uri"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Skipf("the first login's port %s could not be taken for the test: %v", u.Host, err)
	}
	defer ln.Close()
	mustLogIn(t, p, "")
	if got := a.authRequests[1].Get("redirect_uri"); got == u.String() {
		t.Errorf("second login redirects to %s, a port another program holds", got)
	}
	if len(a.registrations) != 2 {
		t.Errorf("%d registrations; want 2 (the new redirect URI needs its own)", len(a.registrations))
	}
}

// savedEntry is an entry of a's issuer for a's server, as a login at a
// would have saved it, without its tokens.
func savedEntry(a *testAS) Entry {
	return Entry{Issuer: a.srv.URL, Resource: a.serverURL(), Server: a.serverURL(), ClientID: "client-saved",
		Registration: regDynamic, AuthMethod: "none", TokenEndpoint: a.srv.URL + "/token", TokenType: "Bearer"}
}

// A saved access token without a refresh token is sent while it lasts;
// a saved refresh token without an access token is refreshed at once.
func TestAuthorizationWithHalfAGrant(t *testing.T) {
	a := newTestAS(t)
	store := &Store{Path: filepath.Join(t.TempDir(), "credentials.json")}
	e := savedEntry(a)
	e.AccessToken, e.Expiry = "at-saved", time.Now().Add(time.Hour)
	if err := store.Save(e); err != nil {
		t.Fatal(err)
	}
	p := New(Config{ServerURL: a.serverURL(), Store: store, Prompt: &browser{}})
	if h := p.Authorization(context.Background()); h != "Bearer at-saved" {
		t.Errorf("access token only: Authorization = %q; want the saved Bearer at-saved", h)
	}

	e = savedEntry(a)
	e.RefreshToken = "rt-saved"
	a.refresh["rt-saved"] = true
	if err := store.Save(e); err != nil {
		t.Fatal(err)
	}
	p = New(Config{ServerURL: a.serverURL(), Store: store, Prompt: &browser{}})
	if h := p.Authorization(context.Background()); !strings.HasPrefix(h, "Bearer at-") {
		t.Errorf("refresh token only: Authorization = %q; want a refreshed token", h)
	}
	if len(a.tokenRequests) != 1 || a.tokenRequests[0].Get("refresh_token") != "rt-saved" {
		t.Errorf("token requests %v; want one refresh of rt-saved", a.tokenRequests)
	}
}

// A 401 for a token older than the provider's is retried with the newer
// one, with nothing sent to the authorization server; a 401 for the
// current token refreshes it; a 401 for the token that refresh gave logs
// in again instead of refreshing in a loop.
func TestUnauthorizedRetriesThenRefreshesThenLogsIn(t *testing.T) {
	a := newTestAS(t)
	p, _ := newTestProvider(t, a, &browser{})
	mustLogIn(t, p, "")
	counts := func() (int, int) { return len(a.authRequests), len(a.tokenRequests) }

	if retry, err := p.Challenged(loginCtx(t), "Bearer stale", unauthorized("")); !retry || err != nil {
		t.Fatalf("401 for an older token: %v, %v; want a retry with the current one", retry, err)
	}
	if auths, tokens := counts(); auths != 1 || tokens != 1 {
		t.Errorf("after a 401 for an older token: %d authorization and %d token requests; want the login's 1 and 1", auths, tokens)
	}

	sent := p.Authorization(context.Background())
	if retry, err := p.Challenged(loginCtx(t), sent, unauthorized("")); !retry || err != nil {
		t.Fatalf("401 for the current token: %v, %v; want a refresh and a retry", retry, err)
	}
	if auths, tokens := counts(); auths != 1 || tokens != 2 || a.tokenRequests[1].Get("grant_type") != "refresh_token" {
		t.Errorf("after a 401 for the current token: %d authorization and %d token requests; want a refresh and no login", auths, tokens)
	}
	refreshed := p.Authorization(context.Background())
	if refreshed == sent {
		t.Fatalf("the refresh left the token %q as it was", sent)
	}

	if retry, err := p.Challenged(loginCtx(t), refreshed, unauthorized("")); !retry || err != nil {
		t.Fatalf("401 for the refreshed token: %v, %v; want a login and a retry", retry, err)
	}
	if auths, _ := counts(); auths != 2 {
		t.Errorf("after a 401 for the refreshed token: %d authorization requests; want a second login", auths)
	}
}

// Tokens the credentials file cannot take are kept for the connection,
// and the store's Warn says so; a save that works says nothing.
func TestLoginWarnsWhenTheTokensCannotBeSaved(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		warn       bool
	}{
		{"unwritable", filepath.Join(notADir, "credentials.json"), true},
		{"writable", filepath.Join(t.TempDir(), "credentials.json"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAS(t)
			var warned []string
			store := &Store{Path: tc.path, Warn: func(m string) { warned = append(warned, m) }}
			p := New(Config{ServerURL: a.serverURL(), Store: store, Prompt: &browser{}})
			mustLogIn(t, p, "")
			if h := p.Authorization(context.Background()); !strings.HasPrefix(h, "Bearer at-") {
				t.Errorf("Authorization after the login = %q; want its token", h)
			}
			if tc.warn && (len(warned) != 1 || !strings.Contains(warned[0], "could not be saved")) {
				t.Errorf("warnings %q; want one saying the tokens could not be saved", warned)
			}
			if !tc.warn && len(warned) != 0 {
				t.Errorf("warnings %q; want none", warned)
			}
		})
	}
}

// The scopes a login holds are those the token response grants, when it
// names any, not those asked for.
func TestLoginKeepsTheGrantedScopes(t *testing.T) {
	a := newTestAS(t)
	a.granted = "read"
	p, store := newTestProvider(t, a, &browser{})
	mustLogIn(t, p, `scope="read write"`)
	if st := p.State(); len(st.Scopes) != 1 || st.Scopes[0] != "read" {
		t.Errorf("state scopes %q; want the granted [read]", st.Scopes)
	}
	if e, err := store.Lookup("", a.serverURL()); err != nil || len(e.Scopes) != 1 || e.Scopes[0] != "read" {
		t.Errorf("saved scopes %q (%v); want the granted [read]", e.Scopes, err)
	}
}

// LoginFailures counts failed logins alone: a login that works adds
// nothing, one the server refuses adds one.
func TestLoginFailuresCountsFailuresOnly(t *testing.T) {
	a := newTestAS(t)
	p, _ := newTestProvider(t, a, &browser{})
	mustLogIn(t, p, "")
	if n := p.LoginFailures(); n != 0 {
		t.Errorf("LoginFailures after a login that worked = %d; want 0", n)
	}
	a.mu.Lock()
	a.refusePKCE = true
	a.mu.Unlock()
	if _, err := p.Challenged(loginCtx(t), p.Authorization(context.Background()), forbidden(`error="insufficient_scope", scope="more"`)); err == nil {
		t.Fatal("the step-up the server refused did not fail")
	}
	if n := p.LoginFailures(); n != 1 {
		t.Errorf("LoginFailures after a refused login = %d; want 1", n)
	}
}

// A token that expires within 10 seconds is refreshed before it is
// sent: it could expire on the way. One with longer to live is sent.
func TestTokenNearExpiryIsRefreshed(t *testing.T) {
	a := newTestAS(t)
	now := time.Now()
	p, _ := newTestProvider(t, a, &browser{})
	p.cfg.Now = func() time.Time { return now }
	mustLogIn(t, p, "")
	first := p.Authorization(context.Background())
	now = p.entry.Expiry.Add(-time.Minute)
	if h := p.Authorization(context.Background()); h != first {
		t.Errorf("a minute before expiry: Authorization = %q; want the same %q", h, first)
	}
	now = p.entry.Expiry.Add(-5 * time.Second)
	if h := p.Authorization(context.Background()); h == first || !strings.HasPrefix(h, "Bearer at-") {
		t.Errorf("5s before expiry: Authorization = %q; want a refreshed token, not %q", h, first)
	}
}

package auth

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"
)

// How mcpoke authenticates at the token endpoint: a registered client
// with no secret ("none") sends its client_id in the form and no
// Authorization header; a pre-registered client with a secret sends both
// in HTTP Basic (the default when the server names neither basic nor
// post) and no secret in the form.
func TestTokenEndpointAuthentication(t *testing.T) {
	a := newTestAS(t)
	p, _ := newTestProvider(t, a, &browser{})
	mustLogIn(t, p, "")
	if f, h := a.tokenRequests[0], a.tokenAuth[0]; h != "" || f.Get("client_id") == "" || f.Get("client_secret") != "" {
		t.Errorf("dynamic client: token request %v with Authorization %q; want client_id in the form, no secret, no header", f, h)
	}

	a = newTestAS(t)
	p = New(Config{ServerURL: a.serverURL(), ClientID: "pre", ClientSecret: "s3cret", Prompt: &browser{}})
	mustLogIn(t, p, "")
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("pre:s3cret"))
	if f, h := a.tokenRequests[0], a.tokenAuth[0]; h != want || f.Get("client_secret") != "" {
		t.Errorf("pre-registered client: token request %v with Authorization %q; want %q and no secret in the form", f, h, want)
	}
}

// Dynamic registration names the client "mcpoke" unless the caller
// names it.
func TestRegistrationClientName(t *testing.T) {
	for _, tc := range []struct{ given, want string }{{"", "mcpoke"}, {"my tool", "my tool"}} {
		a := newTestAS(t)
		p := New(Config{ServerURL: a.serverURL(), ClientName: tc.given, Prompt: &browser{}})
		mustLogIn(t, p, "")
		if got := a.registrations[0].Get("client_name"); got != tc.want {
			t.Errorf("ClientName %q: registered as %q; want %q", tc.given, got, tc.want)
		}
	}
}

// The resource_metadata URL a challenge names is read first: the
// metadata may live there alone, at no well-known location.
func TestChallengeNamesTheOnlyResourceMetadata(t *testing.T) {
	a := newTestAS(t)
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/custom-metadata" {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{a.srv.URL}})
	}))
	t.Cleanup(rs.Close)
	p := New(Config{ServerURL: rs.URL + "/mcp", Prompt: &browser{}})
	mustLogIn(t, p, `resource_metadata="`+rs.URL+`/custom-metadata"`)
	if got := a.authRequests[0].Get("resource"); got != rs.URL+"/mcp" {
		t.Errorf("authorization request for resource %q; want %q", got, rs.URL+"/mcp")
	}
}

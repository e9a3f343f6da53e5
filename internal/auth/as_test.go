package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// testAS is an authorization server and the protected resource metadata
// of one MCP server, on httptest. Its knobs say how it misbehaves.
type testAS struct {
	t   *testing.T
	srv *httptest.Server // the authorization server
	rs  *httptest.Server // the MCP server's origin (metadata only)

	mu sync.Mutex
	// knobs
	iss           string // iss sent in the redirect; "" none, "-" the right one
	issAdvertised bool
	noS256        bool
	refusePKCE    bool // refuse every code challenge, as if it were not S256
	refreshFails  bool
	scopes        []string // the resource's scopes_supported
	granted       string   // the scope the token response grants; "" the one asked for
	// what happened
	registrations []url.Values // client_name and redirect URI of each DCR
	authRequests  []url.Values
	tokenRequests []url.Values
	tokenAuth     []string // the Authorization header of every token request
	clientIDsSeen []string // client_id of every authorize and token request
	challenges    map[string]string
	n             int
	refresh       map[string]bool // live refresh tokens
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{t: t, iss: "-", challenges: map[string]string{}, refresh: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("/authorize", a.authorize)
	mux.HandleFunc("/token", a.token)
	mux.HandleFunc("/register", a.register)
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	rmux := http.NewServeMux()
	rmux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		writeJSON(w, map[string]any{"resource": a.rs.URL + "/mcp", "authorization_servers": []string{a.srv.URL}, "scopes_supported": a.scopes})
	})
	a.rs = httptest.NewServer(rmux)
	t.Cleanup(a.rs.Close)
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (a *testAS) serverURL() string { return a.rs.URL + "/mcp" }

func (a *testAS) metadata(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	methods := []string{"S256"}
	if a.noS256 {
		methods = []string{"plain"}
	}
	writeJSON(w, map[string]any{
		"issuer": a.srv.URL, "authorization_endpoint": a.srv.URL + "/authorize", "token_endpoint": a.srv.URL + "/token",
		"registration_endpoint": a.srv.URL + "/register", "response_types_supported": []string{"code"},
		"code_challenge_methods_supported": methods, "token_endpoint_auth_methods_supported": []string{"none"},
		"authorization_response_iss_parameter_supported": a.issAdvertised,
	})
}

func (a *testAS) register(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var body struct {
		ClientName      string   `json:"client_name"`
		RedirectURIs    []string `json:"redirect_uris"`
		ApplicationType string   `json:"application_type"`
		GrantTypes      []string `json:"grant_types"`
	}
	json.NewDecoder(r.Body).Decode(&body)
	a.registrations = append(a.registrations, url.Values{"client_name": {body.ClientName}, "redirect_uri": body.RedirectURIs,
		"application_type": {body.ApplicationType}, "grant_types": body.GrantTypes})
	a.n++
	w.WriteHeader(http.StatusCreated)
	writeJSON(w, map[string]any{"client_id": fmt.Sprintf("client-%d@%s", a.n, r.Host), "redirect_uris": body.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (a *testAS) authorize(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := r.URL.Query()
	a.authRequests = append(a.authRequests, q)
	a.clientIDsSeen = append(a.clientIDsSeen, q.Get("client_id"))
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	if a.refusePKCE || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		// As a real server does once it trusts the redirect URI (RFC
		// 6749 4.1.2.1): the error goes back to the client, which can
		// stop at once instead of waiting out its login timeout.
		v.Set("error", "invalid_request")
		v.Set("error_description", "PKCE S256 required")
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
		return
	}
	a.n++
	code := fmt.Sprintf("code-%d", a.n)
	a.challenges[code] = q.Get("code_challenge")
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	switch a.iss {
	case "":
	case "-":
		v.Set("iss", a.srv.URL)
	default:
		v.Set("iss", a.iss)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (a *testAS) token(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r.ParseForm()
	f := r.PostForm
	a.tokenRequests = append(a.tokenRequests, f)
	a.tokenAuth = append(a.tokenAuth, r.Header.Get("Authorization"))
	a.clientIDsSeen = append(a.clientIDsSeen, f.Get("client_id"))
	fail := func(code string) {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]string{"error": code})
	}
	scope := ""
	switch f.Get("grant_type") {
	case "authorization_code":
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if a.challenges[f.Get("code")] != base64.RawURLEncoding.EncodeToString(sum[:]) {
			fail("invalid_grant")
			return
		}
		delete(a.challenges, f.Get("code"))
		scope = a.authRequests[len(a.authRequests)-1].Get("scope")
		if a.granted != "" {
			scope = a.granted
		}
	case "refresh_token":
		if a.refreshFails || !a.refresh[f.Get("refresh_token")] {
			fail("invalid_grant")
			return
		}
		delete(a.refresh, f.Get("refresh_token"))
	default:
		fail("unsupported_grant_type")
		return
	}
	a.n++
	rt := fmt.Sprintf("rt-%d", a.n)
	a.refresh[rt] = true
	resp := map[string]any{"access_token": fmt.Sprintf("at-%d", a.n), "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt}
	if scope != "" {
		resp["scope"] = scope
	}
	writeJSON(w, resp)
}

// browser follows the login URL as a browser would, to the loopback.
type browser struct {
	mu     sync.Mutex
	shown  []string
	hosts  []string // the host each login named
	done   []error
	paste  bool // paste the redirect instead of letting it reach the loopback
	pasted func(string) string
}

func (b *browser) ShowLogin(ctx context.Context, host, authURL string) <-chan string {
	b.mu.Lock()
	b.shown = append(b.shown, authURL)
	b.hosts = append(b.hosts, host)
	b.mu.Unlock()
	if !b.paste {
		go func() {
			resp, err := http.Get(authURL)
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	ch := make(chan string, 1)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		close(ch)
		return ch
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if b.pasted != nil {
		loc = b.pasted(loc)
	}
	ch <- loc
	return ch
}

func (b *browser) LoginDone(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = append(b.done, err)
}

// unauthorized is a server's 401 with a Bearer challenge.
func unauthorized(params string) *http.Response {
	h := http.Header{}
	h.Set("WWW-Authenticate", "Bearer "+params)
	return &http.Response{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized", Header: h}
}

func forbidden(params string) *http.Response {
	r := unauthorized(params)
	r.StatusCode, r.Status = http.StatusForbidden, "403 Forbidden"
	return r
}

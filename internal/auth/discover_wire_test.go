package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeNet answers requests for any origin from handlers in memory: the
// tests can name off-machine http and https hosts and send nothing off
// this machine. An origin without a handler answers 404.
type fakeNet struct {
	mu   sync.Mutex
	by   map[string]http.HandlerFunc // scheme://host → handler
	seen []string
}

func (n *fakeNet) RoundTrip(req *http.Request) (*http.Response, error) {
	n.mu.Lock()
	n.seen = append(n.seen, req.URL.String())
	h := n.by[req.URL.Scheme+"://"+req.URL.Host]
	n.mu.Unlock()
	rec := httptest.NewRecorder()
	if h == nil {
		http.NotFound(rec, req)
	} else {
		h(rec, req)
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func (n *fakeNet) client() *http.Client { return &http.Client{Transport: n} }

// asMetadata serves RFC 8414 metadata with the given endpoints at
// /.well-known/oauth-authorization-server.
func asMetadata(issuer, authz, token string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"issuer": issuer, "authorization_endpoint": authz, "token_endpoint": token,
			"code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	}
}

// TestDiscoveryRefusesClearTextEndpoints: whichever path discovery takes
// (the 2025-03-26 metadata, its default endpoints, RFC 8414 behind a
// redirect), an authorization server whose endpoints or metadata travel
// in clear off this machine is refused before a code or verifier exists.
func TestDiscoveryRefusesClearTextEndpoints(t *testing.T) {
	prm := func(resource, as string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
				http.NotFound(w, r)
				return
			}
			writeJSON(w, map[string]any{"resource": resource, "authorization_servers": []string{as}})
		}
	}
	for _, tc := range []struct {
		name   string
		server string
		net    map[string]http.HandlerFunc
		want   string
	}{{
		name:   "old-style metadata names an http token endpoint",
		server: "https://mcp.example/mcp",
		net: map[string]http.HandlerFunc{
			"https://mcp.example": asMetadata("https://mcp.example", "https://mcp.example/authorize", "http://mcp.example/token"),
		},
		want: "token_endpoint",
	}, {
		name:   "old-style default endpoints of an http server",
		server: "http://mcp.example/mcp",
		want:   "neither https nor http on this machine",
	}, {
		name:   "old-style metadata from an http origin",
		server: "http://mcp.example/mcp",
		net: map[string]http.HandlerFunc{
			"http://mcp.example": asMetadata("https://accounts.example", "https://accounts.example/authorize", "https://evil.example/token"),
		},
		want: "neither https nor http on this machine",
	}, {
		name:   "authorization server metadata redirected to http",
		server: "https://mcp.example/mcp",
		net: map[string]http.HandlerFunc{
			"https://mcp.example": prm("https://mcp.example/mcp", "https://as.example"),
			"https://as.example": func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://as.example"+r.URL.Path, http.StatusFound)
			},
			"http://as.example": asMetadata("https://as.example", "https://evil.example/authorize", "https://evil.example/token"),
		},
		want: "from https to plain http",
	}, {
		name:   "old-style metadata redirected to http",
		server: "https://mcp.example/mcp",
		net: map[string]http.HandlerFunc{
			"https://mcp.example": func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/.well-known/oauth-authorization-server" {
					http.Redirect(w, r, "http://mcp.example"+r.URL.Path, http.StatusFound)
					return
				}
				http.NotFound(w, r)
			},
			"http://mcp.example": asMetadata("https://mcp.example", "https://evil.example/authorize", "https://evil.example/token"),
		},
		want: "from https to plain http",
	}, {
		name:   "resource metadata redirected to http on loopback",
		server: "https://mcp.example/mcp",
		net: map[string]http.HandlerFunc{
			"https://mcp.example": func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://127.0.0.1:9"+r.URL.Path, http.StatusFound)
			},
			"http://127.0.0.1:9": prm("https://mcp.example/mcp", "http://127.0.0.1:9"),
		},
		want: "from https to plain http",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			n := &fakeNet{by: tc.net}
			s, err := discover(context.Background(), n.client(), tc.server, challenge{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				var found string
				if s != nil {
					found = " (token endpoint " + s.AS.TokenEndpoint + ")"
				}
				t.Fatalf("discover = %v%s; want a refusal saying %q", err, found, tc.want)
			}
			for _, u := range n.seen {
				if pu, _ := url.Parse(u); pu.Scheme == "http" && !isLoopback(pu.Hostname()) && tc.net[pu.Scheme+"://"+pu.Host] == nil {
					t.Errorf("sent a request in clear off this machine: %s", u)
				}
			}
		})
	}
}

// TestLoginNamesWhereTheBrowserGoes: old-style metadata that claims a
// well-known issuer does not get that name into the prompt; the prompt
// names the host of the address the browser is sent to.
func TestLoginNamesWhereTheBrowserGoes(t *testing.T) {
	a := newTestAS(t)
	a.iss = ""
	legacy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"issuer": "https://accounts.google.com", "authorization_endpoint": a.srv.URL + "/authorize",
			"token_endpoint": a.srv.URL + "/token", "registration_endpoint": a.srv.URL + "/register",
			"code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	}))
	t.Cleanup(legacy.Close)
	b := &browser{}
	p := New(Config{ServerURL: legacy.URL + "/mcp", Prompt: b})
	p.Challenged(context.Background(), "", unauthorized(""))
	b.mu.Lock()
	defer b.mu.Unlock()
	want := strings.TrimPrefix(a.srv.URL, "http://")
	if len(b.hosts) != 1 || b.hosts[0] != want {
		t.Fatalf("the login named %q; want the browser's host %q, not the claimed issuer", b.hosts, want)
	}
}

// A server with no metadata at all (404 for every well-known URL) is a
// 2025-03-26 server: its origin's default endpoints.
func TestDiscoveryDefaultsWithoutAnyMetadata(t *testing.T) {
	n := &fakeNet{by: map[string]http.HandlerFunc{"https://mcp.example": http.NotFound}}
	s, err := discover(context.Background(), n.client(), "https://mcp.example/mcp", challenge{})
	if err != nil {
		t.Fatalf("discover: %v; want the default endpoints", err)
	}
	if !s.Legacy || s.AS.AuthorizationEndpoint != "https://mcp.example/authorize" || s.AS.TokenEndpoint != "https://mcp.example/token" {
		t.Errorf("discovered %+v (legacy %v); want the origin's /authorize and /token", s.AS, s.Legacy)
	}
}

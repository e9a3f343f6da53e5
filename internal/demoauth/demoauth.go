// Package demoauth is a toy OAuth 2.1 authorization server, with the
// protected resource metadata and bearer check of one MCP endpoint, for
// `mcpoke demo-server --http ADDR --oauth`: a person (and the tests) can
// try mcpoke's login without a real identity provider. It approves every
// login at once, and keeps everything in memory.
package demoauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Scope is the one scope the demo knows.
const Scope = "demo"

// Server is the authorization server of the MCP endpoint at Base+MCPPath.
type Server struct {
	base, mcpPath string
	// TokenTTL is how long an access token lives.
	TokenTTL time.Duration
	now      func() time.Time

	mu      sync.Mutex
	clients map[string][]string // client id → redirect URIs
	codes   map[string]grant
	access  map[string]time.Time // token → expiry
	refresh map[string]string    // refresh token → client id
}

type grant struct {
	client, redirect, challenge, scope string
}

// New returns the authorization server of the endpoint at base+mcpPath
// (base is scheme://host:port).
func New(base, mcpPath string) *Server {
	return &Server{base: base, mcpPath: mcpPath, TokenTTL: time.Hour, now: time.Now,
		clients: map[string][]string{}, codes: map[string]grant{}, access: map[string]time.Time{}, refresh: map[string]string{}}
}

// Register adds the metadata documents and the authorization server's
// endpoints to mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /.well-known/oauth-protected-resource"+s.mcpPath, s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("POST /oauth/register", s.register)
	mux.HandleFunc("GET /oauth/authorize", s.authorize)
	mux.HandleFunc("POST /oauth/token", s.token)
}

// Protect answers 401, with the challenge the MCP spec asks for, to a
// request without a live bearer token.
func (s *Server) Protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		exp, known := s.access[tok]
		s.mu.Unlock()
		if ok && known && s.now().Before(exp) {
			next.ServeHTTP(w, r)
			return
		}
		ch := `Bearer resource_metadata="` + s.base + `/.well-known/oauth-protected-resource` + s.mcpPath + `", scope="` + Scope + `"`
		if ok {
			ch += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", ch)
		http.Error(w, "log in first (OAuth)", http.StatusUnauthorized)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, code, why string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": why})
}

func (s *Server) resourceMetadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"resource": s.base + s.mcpPath, "authorization_servers": []string{s.base},
		"scopes_supported": []string{Scope}, "bearer_methods_supported": []string{"header"},
	})
}

func (s *Server) serverMetadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                 s.base,
		"authorization_endpoint": s.base + "/oauth/authorize",
		"token_endpoint":         s.base + "/oauth/token",
		"registration_endpoint":  s.base + "/oauth/register",
		"scopes_supported":       []string{Scope}, "response_types_supported": []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"authorization_response_iss_parameter_supported": true,
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata", "error_description": "redirect_uris is required"})
		return
	}
	id := "demo-" + rand.Text()[:10]
	s.mu.Lock()
	s.clients[id] = req.RedirectURIs
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "client_name": req.ClientName, "redirect_uris": req.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"},
	})
}

// redirectAllowed: a registered URI, or one differing only in the port
// on a loopback address (RFC 8252 §7.3).
func redirectAllowed(registered []string, got string) bool {
	g, err := url.Parse(got)
	if err != nil {
		return false
	}
	for _, r := range registered {
		if r == got {
			return true
		}
		u, err := url.Parse(r)
		if err == nil && u.Scheme == "http" && u.Hostname() == "127.0.0.1" && g.Hostname() == "127.0.0.1" && u.Path == g.Path {
			return true
		}
	}
	return false
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	uris, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	switch {
	case !known:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case !redirectAllowed(uris, q.Get("redirect_uri")):
		http.Error(w, "redirect_uri is not one the client registered", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	fail := func(code string) {
		v.Set("error", code)
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type")
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		fail("invalid_request")
		return
	case q.Get("resource") != s.base+s.mcpPath:
		fail("invalid_target")
		return
	}
	code := rand.Text()
	s.mu.Lock()
	s.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), scope: q.Get("scope")}
	s.mu.Unlock()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	v.Set("iss", s.base)
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, "invalid_request", "not a form")
		return
	}
	f := r.PostForm
	if f.Get("resource") != "" && f.Get("resource") != s.base+s.mcpPath {
		oauthError(w, "invalid_target", "unknown resource")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var client, scope string
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || g.client != f.Get("client_id") || g.redirect != f.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			oauthError(w, "invalid_grant", "the code, its client, redirect URI or PKCE verifier do not match")
			return
		}
		client, scope = g.client, g.scope
	case "refresh_token":
		c, ok := s.refresh[f.Get("refresh_token")]
		if !ok {
			oauthError(w, "invalid_grant", "unknown refresh token")
			return
		}
		delete(s.refresh, f.Get("refresh_token")) // rotation: each is used once
		client, scope = c, Scope
	default:
		oauthError(w, "unsupported_grant_type", "authorization_code or refresh_token")
		return
	}
	at, rt := "demo-at-"+rand.Text(), "demo-rt-"+rand.Text()
	s.access[at] = s.now().Add(s.TokenTTL)
	s.refresh[rt] = client
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(s.TokenTTL.Seconds()), "refresh_token": rt}
	if scope != "" {
		resp["scope"] = scope
	}
	writeJSON(w, http.StatusOK, resp)
}

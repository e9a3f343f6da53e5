package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// challenge is what a server's Bearer challenge (WWW-Authenticate) says.
type challenge struct {
	ResourceMetadata string
	Scopes           []string
	Error            string
}

// parseChallenge reads the Bearer challenge of a 401 or 403 answer; a
// header that cannot be parsed is as good as none.
func parseChallenge(h http.Header) challenge {
	cs, err := oauthex.ParseWWWAuthenticate(h.Values("WWW-Authenticate"))
	if err != nil {
		return challenge{}
	}
	for _, c := range cs {
		if c.Scheme != "bearer" {
			continue
		}
		return challenge{
			ResourceMetadata: c.Params["resource_metadata"],
			Scopes:           strings.Fields(c.Params["scope"]),
			Error:            c.Params["error"],
		}
	}
	return challenge{}
}

// server is what discovery found: the resource to ask tokens for and the
// authorization server that issues them.
type server struct {
	Resource        string
	ScopesSupported []string // the resource's, from its metadata
	AS              *oauthex.AuthServerMeta
	// Legacy: no metadata anywhere, the 2025-03-26 fallback endpoints.
	Legacy bool
}

// discover finds the authorization server of the MCP server at
// serverURL: its protected resource metadata (RFC 9728) from the
// challenge's resource_metadata, else the path-aware well-known URL,
// else the root one; then that server's metadata (RFC 8414, then OpenID
// discovery). With no resource metadata, the 2025-03-26 rules: the
// server's origin is the authorization server.
func discover(ctx context.Context, c *http.Client, serverURL string, ch challenge) (*server, error) {
	c = noDowngrade(c)
	resource := canonicalResource(serverURL)
	prm, err := resourceMetadata(ctx, c, resource, ch.ResourceMetadata)
	if err != nil {
		return nil, err
	}
	s := &server{Resource: resource}
	issuer := origin(serverURL)
	if prm != nil {
		if len(prm.AuthorizationServers) == 0 {
			return nil, errors.New("the server's protected resource metadata names no authorization server")
		}
		s.Resource = prm.Resource
		s.ScopesSupported = prm.ScopesSupported
		issuer = prm.AuthorizationServers[0]
	}
	var asm *oauthex.AuthServerMeta
	if prm != nil {
		asm, err = sdkauth.GetAuthServerMetadata(ctx, issuer, c)
		if err != nil {
			return nil, fmt.Errorf("authorization server %s: %w", issuer, err)
		}
		if asm == nil {
			return nil, fmt.Errorf("authorization server %s publishes no metadata (RFC 8414 or OpenID discovery)", issuer)
		}
	} else if asm, err = legacyMetadata(ctx, c, issuer); err != nil {
		return nil, err
	}
	if asm == nil {
		// 2025-03-26: "fallbacks for servers without metadata discovery".
		asm = &oauthex.AuthServerMeta{
			Issuer:                        issuer,
			AuthorizationEndpoint:         issuer + "/authorize",
			TokenEndpoint:                 issuer + "/token",
			RegistrationEndpoint:          issuer + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
		}
		s.Legacy = true
	}
	if err := checkEndpoints(asm); err != nil {
		return nil, err
	}
	if !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("authorization server %s does not offer PKCE with S256 (it offers %q); mcpoke will not log in without it", asm.Issuer, asm.CodeChallengeMethodsSupported)
	}
	s.AS = asm
	return s, nil
}

// resourceMetadata tries the spec's locations in order: the challenge's
// resource_metadata, the path-aware well-known URL, the root one. nil,
// nil means none has any. A document for another resource ends the
// search with an error: mcpoke never falls back past it.
func resourceMetadata(ctx context.Context, c *http.Client, resource, fromChallenge string) (*oauthex.ProtectedResourceMetadata, error) {
	var cands []string
	if fromChallenge != "" {
		cands = append(cands, fromChallenge)
	}
	u, err := url.Parse(resource)
	if err != nil {
		return nil, err
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		cands = append(cands, u.Scheme+"://"+u.Host+"/.well-known/oauth-protected-resource/"+p)
	}
	cands = append(cands, u.Scheme+"://"+u.Host+"/.well-known/oauth-protected-resource")
	var errs []error
	for _, cand := range cands {
		// Metadata from plain http off this machine could be anyone's.
		if err := checkMetadataURL(cand); err != nil {
			errs = append(errs, err)
			continue
		}
		prm, err := getJSON[oauthex.ProtectedResourceMetadata](ctx, c, cand)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prm == nil {
			continue
		}
		if !resourceCovers(prm.Resource, resource) {
			return nil, fmt.Errorf("the protected resource metadata at %s is for %q, not for %s: refusing to log in for it", cand, prm.Resource, resource)
		}
		for _, as := range prm.AuthorizationServers {
			if err := checkMetadataURL(as); err != nil {
				return nil, fmt.Errorf("the protected resource metadata at %s names authorization server %q: %w", cand, as, err)
			}
		}
		return prm, nil
	}
	if len(errs) > 0 && fromChallenge != "" {
		return nil, fmt.Errorf("protected resource metadata: %w", errors.Join(errs...))
	}
	return nil, nil
}

// resourceCovers reports whether the metadata's resource is the server's
// URL or a parent of it (same origin, a path prefix on a segment
// boundary), as the TypeScript SDK accepts.
func resourceCovers(prmResource, serverResource string) bool {
	p, err1 := url.Parse(prmResource)
	s, err2 := url.Parse(serverResource)
	if err1 != nil || err2 != nil || !strings.EqualFold(p.Scheme, s.Scheme) || !strings.EqualFold(p.Host, s.Host) || p.Fragment != "" {
		return false
	}
	pp, sp := strings.TrimSuffix(p.Path, "/"), strings.TrimSuffix(s.Path, "/")
	return pp == "" || pp == sp || strings.HasPrefix(sp, pp+"/")
}

// checkEndpoints refuses an authorization server whose endpoints would
// carry the code, the PKCE verifier, a client secret or tokens in clear
// off this machine, whichever discovery path found them (RFC 8414, the
// 2025-03-26 metadata or its default endpoints).
func checkEndpoints(asm *oauthex.AuthServerMeta) error {
	for _, ep := range []struct{ name, url string }{
		{"authorization_endpoint", asm.AuthorizationEndpoint},
		{"token_endpoint", asm.TokenEndpoint},
		{"registration_endpoint", asm.RegistrationEndpoint},
	} {
		if ep.url == "" {
			continue
		}
		if err := checkMetadataURL(ep.url); err != nil {
			return fmt.Errorf("authorization server %s: its %s %w: mcpoke will not send a code, a verifier or a token there in clear", asm.Issuer, ep.name, err)
		}
	}
	return nil
}

// noDowngrade is c that follows no redirect to plain http off this
// machine, nor any from https to http: metadata that arrives that way
// could be anyone's, and the endpoints it names get the secrets.
func noDowngrade(c *http.Client) *http.Client {
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("refusing the redirect from %s to %s: from https to plain http", via[len(via)-1].URL.Redacted(), req.URL.Redacted())
		}
		if err := checkMetadataURL(req.URL.String()); err != nil {
			return fmt.Errorf("refusing the redirect to %s: %w", req.URL.Redacted(), err)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cc
}

// checkMetadataURL allows https, and http on loopback only.
func checkMetadataURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	switch {
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%q is neither https nor http on this machine", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// getJSON fetches a metadata document; nil, nil on a 4xx.
func getJSON[T any](ctx context.Context, c *http.Client, u string) (*T, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 4 {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %s", u, resp.Status)
	}
	var v T
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return nil, fmt.Errorf("GET %s: not JSON metadata: %w", u, err)
	}
	return &v, nil
}

// canonicalResource is the server's URL as RFC 8707 wants a resource:
// lower-case scheme and host, no fragment, no query.
func canonicalResource(serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return serverURL
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment, u.RawFragment, u.RawQuery = "", "", ""
	return u.String()
}

// origin is scheme://host of a URL.
func origin(serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return serverURL
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// legacyMetadata is the 2025-03-26 discovery: the MCP server's origin
// serves RFC 8414 metadata at the root well-known URL. Its issuer may
// carry a path the origin has not (servers of that time did so), so it is
// not compared with the origin. nil, nil: none.
func legacyMetadata(ctx context.Context, c *http.Client, base string) (*oauthex.AuthServerMeta, error) {
	if err := checkMetadataURL(base); err != nil {
		return nil, fmt.Errorf("the server's origin %w: mcpoke takes authorization metadata and endpoints only from https (or http on this machine)", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/.well-known/oauth-authorization-server", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("MCP-Protocol-Version", "2025-03-26")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization server metadata at %s: %w", base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 4 {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("authorization server metadata at %s: HTTP %s", base, resp.Status)
	}
	var asm oauthex.AuthServerMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&asm); err != nil {
		return nil, fmt.Errorf("authorization server metadata at %s: %w", base, err)
	}
	for _, u := range []string{asm.AuthorizationEndpoint, asm.TokenEndpoint, asm.RegistrationEndpoint} {
		if pu, err := url.Parse(u); u != "" && (err != nil || (pu.Scheme != "https" && pu.Scheme != "http")) {
			return nil, fmt.Errorf("authorization server metadata at %s holds an endpoint that is not an http(s) URL", base)
		}
	}
	if asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "" {
		return nil, fmt.Errorf("authorization server metadata at %s lacks the authorization or token endpoint", base)
	}
	if asm.Issuer == "" {
		asm.Issuer = base
	}
	return &asm, nil
}

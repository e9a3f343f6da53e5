package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// When every place for protected resource metadata fails, discovery
// stops with the failures only if the server's challenge named where
// the metadata is; otherwise it falls back (nil, nil) as for a server
// that has none.
func TestResourceMetadataFailsOnlyWhereTheChallengeNamedIt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer srv.Close()
	ctx := context.Background()
	prm, err := resourceMetadata(ctx, srv.Client(), srv.URL+"/mcp", srv.URL+"/.well-known/oauth-protected-resource/mcp")
	if err == nil || prm != nil {
		t.Errorf("with a challenge: %v, %v; want the failures", prm, err)
	}
	prm, err = resourceMetadata(ctx, srv.Client(), srv.URL+"/mcp", "")
	if err != nil || prm != nil {
		t.Errorf("without a challenge: %v, %v; want nil, nil", prm, err)
	}

	// A 404 is no failure: no metadata there, as for a server without
	// any, even where the challenge pointed.
	none := httptest.NewServer(http.NotFoundHandler())
	defer none.Close()
	prm, err = resourceMetadata(ctx, none.Client(), none.URL+"/mcp", none.URL+"/.well-known/oauth-protected-resource/mcp")
	if err != nil || prm != nil {
		t.Errorf("404 everywhere, with a challenge: %v, %v; want nil, nil", prm, err)
	}
}

// The resource sent to the authorization server is the server's URL in
// RFC 8707's form: lower-case scheme and host, no query or fragment.
func TestCanonicalResource(t *testing.T) {
	if got, want := canonicalResource("HTTPS://Example.COM:8443/MCP?x=1#top"), "https://example.com:8443/MCP"; got != want {
		t.Errorf("canonicalResource = %q, want %q", got, want)
	}
}

// Legacy (2025-03-26) metadata without an issuer stands for the server's
// origin; one with an issuer keeps it.
func TestLegacyMetadataIssuer(t *testing.T) {
	for _, issuer := range []string{"", "https://as.example"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t"}`, issuer)
		}))
		asm, err := legacyMetadata(context.Background(), srv.Client(), srv.URL)
		srv.Close()
		want := issuer
		if want == "" {
			want = srv.URL
		}
		if err != nil || asm == nil || asm.Issuer != want {
			t.Errorf("issuer %q: %+v, %v; want issuer %s", issuer, asm, err, want)
		}
	}
}

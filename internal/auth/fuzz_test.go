package auth

import (
	"net/http"
	"testing"
)

// FuzzParseChallenge: any WWW-Authenticate header is read without a
// panic (the parser is the go-sdk's oauthex; this guards our use of it).
func FuzzParseChallenge(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", scope="a b"`,
		`Bearer error="insufficient_scope", scope="mcp:admin", error_description="never"`,
		`Basic realm="x", Bearer scope=a`, `Bearer`, `Bearer ,,,`, `"`, `Bearer a="\"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := http.Header{}
		h.Add("WWW-Authenticate", s)
		parseChallenge(h)
	})
}

// FuzzParsePasted: what a person pastes never panics, and an accepted
// paste always carries a code.
func FuzzParsePasted(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:4242/callback?code=abc&state=xyz&iss=https%3A%2F%2Fas", "abc", "?code=a", "code=a#frag",
		"http://x/?error=access_denied", "%zz=1", " \n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parsePasted(s)
		if err == nil && r.Code == "" {
			t.Fatalf("parsePasted(%q) accepted no code", s)
		}
	})
}

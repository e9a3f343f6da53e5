package auth

import "testing"

// What a person pastes: the whole address, its query with or without
// the "?", or the bare code. A fragment is never read: the code comes in
// the query (mcpoke asks for no other response mode).
func TestParsePasted(t *testing.T) {
	for _, tc := range []struct {
		paste, code, state string // code "": refused
	}{
		{"http://127.0.0.1:4242/callback?code=abc&state=s#frag", "abc", "s"},
		{"?code=abc&state=s", "abc", "s"},
		{"code=abc&state=s", "abc", "s"},
		{"  abc\n", "abc", ""},
		{"#state=s&code=abc", "", ""},
		{"http://127.0.0.1:4242/callback#code=abc", "", ""},
	} {
		r, err := parsePasted(tc.paste)
		switch {
		case tc.code == "" && err == nil:
			t.Errorf("parsePasted(%q) = %+v; want it refused (no code in a query)", tc.paste, r)
		case tc.code != "" && (err != nil || r.Code != tc.code || r.State != tc.state || !r.Pasted):
			t.Errorf("parsePasted(%q) = %+v, %v; want code %q, state %q, pasted", tc.paste, r, err, tc.code, tc.state)
		}
	}
}

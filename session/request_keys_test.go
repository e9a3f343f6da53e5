package session

import (
	"encoding/json"
	"testing"
)

// FuzzRequestKeys: the one-pass reader finds what toolName and
// progressTokenOf find, for any valid JSON params.
func FuzzRequestKeys(f *testing.F) {
	for _, seed := range []string{
		`{"name":"echo","arguments":{"text":"hi"}}`,
		`{"_meta":{"progressToken":5,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo"}`,
		`{"name":"a","name":"b","_meta":{"progressToken":"x"},"_meta":{"progressToken":2}}`,
		`{"na\u006de":"escaped","_meta":{"progressToken":1}}`,
		`{"_meta":{"progress\u0054oken":3},"name":"x"}`,
		`{"_meta":null,"name":7}`,
		`{"_meta":{"progressToken":null}}`,
		`{"_meta":{"progressToken":1.5}}`,
		`{"name":"\u00e9\n"}`,
		`{"progressToken":1,"_meta":{"progress\u0054oken":3}}`,
		`[1,2]`, `null`, `{}`, `{"_meta":[],"name":{}}`,
	} {
		f.Add("tools/call", seed)
		f.Add("resources/read", seed)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		if !json.Valid([]byte(params)) {
			return // frames are valid JSON before any reader sees them
		}
		tool, token := requestKeys(method, []byte(params))
		wantToken, _ := progressTokenOf([]byte(params))
		if want := toolName(method, []byte(params)); tool != want || token != wantToken {
			t.Errorf("requestKeys(%q, %s) = %q, %v; toolName and progressTokenOf say %q, %v", method, params, tool, token, want, wantToken)
		}
	})
}

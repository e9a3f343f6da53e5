package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseEnvelope checks the hand-written envelope parser against
// encoding/json on every valid JSON object.
func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","a":[1,{"b":"}"}]}}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[{"type":"text","text":"]}"}]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{ "id" : 3 , "method" : "p\u0069ng" }`,
		`{"\u0069d":4,"result":true}`,
		`{"id":1,"id":2,"result":1}`,
		`{}`, `{"method":1}`,
		// An empty method is a method; broken UTF-8 becomes U+FFFD.
		`{"method":""}`, "{\"id\":1,\"method\":\"a\xffb\"}",
		// Members after an escaped method are still read.
		`{"method":"p\u0069ng","id":3,"params":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		if !json.Valid(frame) || bytes.TrimSpace(frame)[0] != '{' {
			return // the session checks validity first; non-objects are noise
		}
		if hasCaseFoldedKey(frame) {
			return // encoding/json matches keys case-insensitively; JSON-RPC does not
		}
		var want, got wireMessage
		wantErr := json.Unmarshal(frame, &want)
		gotErr := parseEnvelope(frame, &got)
		if (wantErr == nil) != (gotErr == nil) {
			if wantErr != nil {
				return // encoding/json rejects a wrongly typed member; we only need the spans
			}
			t.Fatalf("parseEnvelope(%s) = %v, encoding/json accepted it", frame, gotErr)
		}
		if wantErr != nil {
			return
		}
		if got.Method != want.Method {
			t.Fatalf("method %q, want %q", got.Method, want.Method)
		}
		for _, p := range [][2]json.RawMessage{{got.ID, want.ID}, {got.Params, want.Params}, {got.Result, want.Result}, {got.Error, want.Error}} {
			if !bytes.Equal(bytes.TrimSpace(p[0]), bytes.TrimSpace(p[1])) {
				t.Fatalf("member %s, want %s (frame %s)", p[0], p[1], frame)
			}
		}
	})
}

func hasCaseFoldedKey(frame []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(frame, &obj) != nil {
		return false
	}
	for k := range obj {
		for _, name := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			if k != name && strings.EqualFold(k, name) {
				return true
			}
		}
	}
	return false
}

// TestParseEnvelopeInternsKnownMethods: the method of a request MCP
// defines costs no allocation, and any other is still read as sent.
func TestParseEnvelopeInternsKnownMethods(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`)
	var m wireMessage
	if allocs := testing.AllocsPerRun(100, func() { _ = parseEnvelope(frame, &m) }); allocs != 0 {
		t.Errorf("parseEnvelope of a tools/call allocated %v times; want 0", allocs)
	}
	if m.Method != "tools/call" {
		t.Errorf("method %q", m.Method)
	}
	for _, method := range []string{"x/custom", "tools/call2", "tools/cal", ""} {
		var m wireMessage
		if err := parseEnvelope([]byte(`{"jsonrpc":"2.0","method":"`+method+`"}`), &m); err != nil || m.Method != method {
			t.Errorf("method %q read as %q (%v)", method, m.Method, err)
		}
	}
}

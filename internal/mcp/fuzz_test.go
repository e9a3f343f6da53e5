package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// resultTypeByMap is the resultType of a JSON object as JSON means it:
// the exact key "resultType" (the last of duplicates), a non-empty string,
// else "complete".
func resultTypeByMap(b []byte) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return "", false
	}
	var s string
	if json.Unmarshal(m["resultType"], &s) == nil && s != "" {
		return s, true
	}
	return session.ResultComplete, true
}

// FuzzReadResultMeta: the client layer reads a result's resultType as the
// session does (exact key, no case folding), whatever else the result
// holds, and never panics.
func FuzzReadResultMeta(f *testing.F) {
	for _, s := range []string{
		`{"resultType":"input_required","requestState":"s","_meta":[]}`,
		`{"ResultType":"input_required"}`,
		`{"resultType":"complete","RESULTTYPE":"input_required"}`,
		`{"resultType":7,"ttlMs":"x","cacheScope":1,"_meta":{"io.modelcontextprotocol/serverInfo":"x"}}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}`,
		`[]`, `null`, `{"resultType":"a\u0000b"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := ReadResultMeta(b)
		want, ok := resultTypeByMap(b)
		if !ok {
			return
		}
		if m.Type != want {
			t.Fatalf("ReadResultMeta(%s).Type = %q, the exact key says %q", b, m.Type, want)
		}
		if got := session.Member(b, "resultType"); got != nil {
			var s string
			if json.Unmarshal(got, &s) == nil && s != "" && s != m.Type {
				t.Fatalf("session reads resultType %q of %s, ReadResultMeta %q", s, b, m.Type)
			}
		}
	})
}

// FuzzRetryParams: an input_required result is read without a panic, and
// when it is usable the retry carries its requestState byte for byte and
// the original params otherwise.
func FuzzRetryParams(f *testing.F) {
	f.Add([]byte(`{"resultType":"input_required","requestState":"a\"b\u00e9","inputRequests":{"k":{"method":"roots/list"}}}`),
		[]byte(`{"name":"t","arguments":{"x":1},"_meta":{"progressToken":1,"k":2},"requestState":"old"}`))
	f.Add([]byte(`{"resultType":"input_required","requestState":""}`), []byte(`null`))
	f.Add([]byte(`{"resultType":"input_required","requestState":  "x" ,"inputRequests":null}`), []byte(`{"_meta":{"progressToken":"p"}}`))
	f.Fuzz(func(t *testing.T, result, sent []byte) {
		ir, ok, err := ReadInputRequired(result)
		if !ok || err != nil {
			return
		}
		params, err := RetryParams(sent, map[string]json.RawMessage{"k": json.RawMessage(`{}`)}, ir.State)
		if err != nil {
			return // sent is not an object
		}
		var p map[string]json.RawMessage
		if err := json.Unmarshal(params, &p); err != nil {
			t.Fatalf("retry params %s are not a JSON object: %v", params, err)
		}
		if ir.State != nil && !bytes.Equal(p["requestState"], ir.State) {
			t.Fatalf("requestState %s became %s", ir.State, p["requestState"])
		}
		if ir.State == nil && p["requestState"] != nil {
			t.Fatalf("a requestState %s appeared", p["requestState"])
		}
		if string(p["inputResponses"]) != `{"k":{}}` {
			t.Fatalf("inputResponses %s", p["inputResponses"])
		}
		if bytes.Contains(p["_meta"], []byte(`"progressToken"`)) {
			t.Fatalf("the progress token was kept: %s", p["_meta"])
		}
	})
}

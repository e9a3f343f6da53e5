package demo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// The fast path writes a tool's result by appending bytes instead of
// encoding it (through a map in 2026-07-28): its bytes must be
// json.Marshal's and modernResult's.
func TestAppendedToolResultIsEncoded(t *testing.T) {
	results := []toolResult{textResult("hi"), errorResult(`<b> & "q" ünï`), {}, failedResult,
		{Content: []textContent{{Type: "text", Text: "a\u2028b\x00\x7f\tc"}, {Type: "ty\"pe", Text: "\xff\xfe invalid"}}},
		{Content: []textContent{}}}
	for _, res := range results {
		want, err := modernResult(res, false, demoImplementation())
		if err != nil {
			t.Fatal(err)
		}
		if got := modernToolResult(res); string(got) != string(want) {
			t.Fatalf("modernToolResult(%+v)\n got %s\nwant %s", res, got, want)
		}
		want, _ = json.Marshal(res)
		if got := legacyToolResult(res); string(got) != string(want) {
			t.Fatalf("legacyToolResult(%+v)\n got %s\nwant %s", res, got, want)
		}
	}
}

// echo answered on the reader in 2026-07-28 says what eraAware says; a
// version the demo does not speak, or a _meta ReadRequestMeta cannot read
// (then the request is legacy), is left to the handler, as before.
func TestModernEchoOnTheFastPath(t *testing.T) {
	cli, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	want := modernToolResult(textResult("hi"))
	for _, tc := range []struct{ meta, want string }{
		{`{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/logLevel":"info"}`, string(want)},
		{`{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/clientInfo":"nobody"}`, `{"content":[{"type":"text","text":"hi"}]}`},
		{`{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/logLevel":3}`, `{"content":[{"type":"text","text":"hi"}]}`},
		{`{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}`, ""},
	} {
		params := `{"name":"echo","arguments":{"text":"hi"},"_meta":` + tc.meta + `}`
		res, err := cli.Do(ctx, "tools/call", json.RawMessage(params), session.CallOptions{NoProgressToken: true})
		if tc.want == "" {
			if _, ok := session.AsVersionRefused(err, ""); !ok {
				t.Fatalf("%s: %s %v, want the version refused", tc.meta, res, err)
			}
			continue
		}
		if err != nil || string(res) != tc.want {
			t.Fatalf("%s:\n got %s %v\nwant %s", tc.meta, res, err, tc.want)
		}
	}
}

// Servers share the prepared tools (each modern HTTP request has one),
// and one that adds tools to its own list leaves the others' alone.
func TestServersSharePreparedTools(t *testing.T) {
	a, b := newServer(nil), newServer(nil)
	if len(a.tools) == 0 || a.tools[0] != b.tools[0] {
		t.Fatal("each server prepared its own tools")
	}
	n := len(b.tools)
	a.tools = append(a.tools, preparedConformanceTools()...)
	b.tools = append(b.tools, preparedConformanceAskTools()...)
	if len(a.tools) != n+len(preparedConformanceTools()) || a.tools[n] != preparedConformanceTools()[0] || len(preparedTools()) != n {
		t.Fatalf("appending to one server's tools changed another's: %d %d", len(a.tools), len(preparedTools()))
	}
}

// legacyToolResult is json.Marshal(res), as the fast path writes it.
func legacyToolResult(res toolResult) json.RawMessage {
	return closeResult(appendToolResultMembers(openResult(nil, false), res), false)
}

// modernToolResult is modernResult(res, false, demoImplementation()),
// as the fast path writes it.
func modernToolResult(res toolResult) json.RawMessage {
	return closeResult(appendToolResultMembers(openResult(nil, true), res), true)
}

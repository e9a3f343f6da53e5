package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

func TestHeaderParamsFollowTheRules(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   string // names and paths, or the error's text
	}{
		{`{"type":"object","properties":{"q":{"type":"string"}}}`, ""},
		{`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`,
			"N=n Region=region"},
		{`{"type":"object","properties":{"where":{"type":"object","properties":{"zone":{"type":"boolean","x-mcp-header":"Zone"}}}}}`,
			"Zone=where.zone"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, "empty"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}}`, "not an HTTP header name token"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Dup"},"b":{"type":"string","x-mcp-header":"dup"}}}`, "also used by"},
		{`{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, `type "number"`},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, "reachable through properties alone"},
		{`{"type":"object","oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "reachable through properties alone"},
		{`{"type":"object","x-mcp-header":"Root"}`, "reachable through properties alone"},
		{`{"$defs":{"x":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}}}`, "reachable through properties alone"},
	} {
		params, err := HeaderParams(json.RawMessage(tc.schema))
		var got string
		if err != nil {
			got = err.Error()
			if tc.want == "" || !strings.Contains(got, tc.want) {
				t.Errorf("%s: error %q, want %q", tc.schema, got, tc.want)
			}
			continue
		}
		var parts []string
		for _, p := range params {
			parts = append(parts, p.Name+"="+strings.Join(p.Path, "."))
		}
		if got = strings.Join(parts, " "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.schema, got, tc.want)
		}
	}
}

func TestParamHeadersTakeTheArguments(t *testing.T) {
	tool := Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"s":{"type":"string","x-mcp-header":"S"},"n":{"type":"integer","x-mcp-header":"N"},
		"b":{"type":"boolean","x-mcp-header":"B"},"gone":{"type":"string","x-mcp-header":"Gone"},
		"nil":{"type":"string","x-mcp-header":"Nil"},
		"o":{"type":"object","properties":{"deep":{"type":"string","x-mcp-header":"Deep"}}}}}`)}
	got, err := ParamHeaders(tool, json.RawMessage(`{"s":"Hello, 世界","n":-7,"b":false,"nil":null,"o":{"deep":"x"}}`))
	want := map[string]string{"S": "Hello, 世界", "N": "-7", "B": "false", "Deep": "x"}
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("ParamHeaders = %v %v, want %v", got, err, want)
	}
	if _, err := ParamHeaders(tool, json.RawMessage(`{"n":9007199254740993}`)); !errors.Is(err, ErrHeaderValue) {
		t.Errorf("an integer past 2^53: %v", err)
	}
	if _, err := ParamHeaders(tool, json.RawMessage(`{"n":1.5}`)); !errors.Is(err, ErrHeaderValue) {
		t.Errorf("a fraction: %v", err)
	}
}

// A tool with invalid marks is left out when the list is for HTTP, and
// said why; kept otherwise.
func TestListToolsRejectsBadHeaderMarks(t *testing.T) {
	bad := map[string]any{"name": "bad", "inputSchema": json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`)}
	page := func(string) any {
		return map[string]any{"tools": []any{toolEntry("good"), bad}, "ttlMs": 5000, "cacheScope": "private"}
	}
	list, err := ListTools(testContext(t), pagedServer(t, page), ListOptions{RejectBadHeaders: true})
	if err != nil || names(list.Tools) != "good" || len(list.Rejected) != 1 || list.Rejected[0].Name != "bad" {
		t.Fatalf("list %+v %v", list, err)
	}
	if d := list.Cache.Describe(); d != "ttl 5s, cache private" {
		t.Errorf("cache %q", d)
	}
	list, _ = ListTools(testContext(t), pagedServer(t, page), ListOptions{})
	if names(list.Tools) != "good,bad" {
		t.Errorf("without RejectBadHeaders: %s", names(list.Tools))
	}
}

// A call refused with HeaderMismatch is retried once after listing the
// tools again, with the headers the new schema asks for.
func TestRetryAfterHeaderMismatch(t *testing.T) {
	a, b := transporttest.Pipe()
	var mu sync.Mutex
	var calls []string
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/list": func(context.Context, *session.Incoming) (any, error) {
			return map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": json.RawMessage(
				`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`)}}}, nil
		},
		"tools/call": func(_ context.Context, in *session.Incoming) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, in.ID.String())
			if len(calls) == 1 {
				return nil, &session.RPCError{Code: session.CodeHeaderMismatch, Message: "Header mismatch: Mcp-Param-Region is missing"}
			}
			return map[string]any{"content": []any{}}, nil
		},
	}})
	cli := session.New(a, session.Config{})
	defer srv.Close()
	defer cli.Close()
	cli.UseEra2026(session.Era2026Options{})
	ctx := testContext(t)
	args := json.RawMessage(`{"r":"eu"}`)
	first, err := StartToolCall(ctx, cli, Tool{Name: "t"}, args, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = first.Wait(ctx)
	if !HeaderMismatch(err) || !strings.Contains(err.Error(), "HeaderMismatch, the HTTP headers") {
		t.Fatalf("first call: %v", err)
	}
	again, list, err := RetryAfterHeaderMismatch(ctx, cli, "t", args, ListOptions{}, session.CallOptions{})
	if err != nil || len(list.Tools) != 1 {
		t.Fatal(err)
	}
	if _, err := again.Wait(ctx); err != nil || again.ID() == first.ID() {
		t.Fatalf("retry: %v, id %s after %s", err, again.ID(), first.ID())
	}
	if _, _, err := RetryAfterHeaderMismatch(ctx, cli, "gone", args, ListOptions{}, session.CallOptions{}); err == nil ||
		!strings.Contains(err.Error(), "no longer lists") {
		t.Errorf("a tool that is gone: %v", err)
	}
}

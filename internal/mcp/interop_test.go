package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The client layer against the npm reference server
// (@modelcontextprotocol/server-everything@2026.8.31): resources,
// templates, subscriptions, prompts, completion with context, and
// logging. It is skipped when the server or node is missing, unless
// MCPOKE_REQUIRE_PEERS=1 (.ci/run installs them).

func peer(t *testing.T, pkg string, args ...string) *connect.Conn {
	t.Helper()
	dir := os.Getenv("MCPOKE_PEERS_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "mcpoke-peers")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	_, statErr := os.Stat(entry)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
			t.Fatalf("MCPOKE_REQUIRE_PEERS=1 but %s or node is missing: %v %v", entry, statErr, nodeErr)
		}
		t.Skipf("%s is not installed (.ci/run installs it)", pkg)
	}
	conn, err := connect.Start(connect.CommandSpec(append([]string{"node", entry}, args...)), connect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Initialize(context.Background()); err != nil {
		t.Fatal(err)
	}
	return conn
}

func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// notification waits for a notification of method for which match holds.
func notification(t *testing.T, sub *session.Subscription, method string, match func(json.RawMessage) bool) json.RawMessage {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				t.Fatal("session ended")
			}
			if n, ok := e.(session.NotificationArrived); ok && n.Method == method && match(n.Params) {
				return n.Params
			}
		case <-deadline:
			t.Fatalf("no %s came", method)
		}
	}
}

func TestInteropEverythingResources(t *testing.T) {
	conn := peer(t, "server-everything", "stdio")
	s := conn.Session
	list, err := mcp.ListResources(timeout(t), s, mcp.ListOptions{})
	if err != nil || len(list.Resources) == 0 {
		t.Fatalf("%v %+v", err, list)
	}
	templates, err := mcp.ListResourceTemplates(timeout(t), s, mcp.ListOptions{})
	if err != nil || len(templates.Templates) != 2 {
		t.Fatalf("%v %+v", err, templates)
	}
	for _, tm := range templates.Templates {
		if strings.Join(tm.Variables, ",") != "resourceId" {
			t.Errorf("%s: variables %v", tm.URITemplate, tm.Variables)
		}
		uri, err := mcp.ExpandTemplate(tm.URITemplate, map[string]string{"resourceId": "7"})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := s.Do(timeout(t), "resources/read", mcp.ReadResourceParams(uri), session.CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := mcp.ReadReadResult(raw)
		if err != nil || len(res.Contents) != 1 || !strings.HasPrefix(string(res.Contents[0].Bytes()), "Resource 7: ") {
			t.Fatalf("%s: %v %+v", uri, err, res)
		}
		if blob := strings.Contains(tm.URITemplate, "/blob/"); res.Contents[0].IsBlob != blob {
			t.Errorf("%s: IsBlob %v", uri, res.Contents[0].IsBlob)
		}
	}

	// Subscribe, then have the server start its updates: the first comes
	// at once.
	sub := s.Subscribe()
	defer sub.Close()
	uri := list.Resources[0].URI
	if err := mcp.CheckDeclared(s.Peer(), "resources/subscribe"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Do(timeout(t), "resources/subscribe", mcp.ReadResourceParams(uri), session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	toggle, _ := mcp.CallToolParams("toggle-subscriber-updates", nil)
	if _, err := s.Do(timeout(t), "tools/call", toggle, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	notification(t, sub, mcp.ResourceUpdated, func(p json.RawMessage) bool {
		got, err := mcp.ParseResourceUpdated(p)
		return err == nil && got == uri
	})
	if _, err := s.Do(timeout(t), "resources/unsubscribe", mcp.ReadResourceParams(uri), session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestInteropEverythingPromptsAndCompletion(t *testing.T) {
	s := peer(t, "server-everything", "stdio").Session
	list, err := mcp.ListPrompts(timeout(t), s, mcp.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var args mcp.Prompt
	for _, p := range list.Prompts {
		if p.Name == "args-prompt" {
			args = p
		}
	}
	if err := args.ArgumentsTool().Schema.Validate(json.RawMessage(`{"city":"Paris"}`)); err != nil {
		t.Fatalf("args-prompt %+v: %v", args, err)
	}
	params, _ := mcp.GetPromptParams("args-prompt", json.RawMessage(`{"city":"Paris","state":"IDF"}`))
	raw, err := s.Do(timeout(t), "prompts/get", params, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := mcp.ReadPromptResult(raw)
	if err != nil || len(res.Messages) == 0 || !strings.Contains(string(res.Messages[0].Content), "Paris") {
		t.Fatalf("%v %s", err, raw)
	}

	complete := func(arg, value string, others map[string]string) []string {
		raw, err := s.Do(timeout(t), "completion/complete", mcp.CompleteParams(mcp.PromptRef("completable-prompt"), arg, value, others), session.CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := mcp.ReadCompleteResult(raw)
		if err != nil {
			t.Fatal(err)
		}
		return c.Values
	}
	if got := complete("department", "S", nil); strings.Join(got, ",") != "Sales,Support" {
		t.Errorf("department S: %v", got)
	}
	// The second argument's values depend on the first, sent as context.
	if got := complete("name", "", map[string]string{"department": "Engineering"}); strings.Join(got, ",") != "Alice,Bob,Charlie" {
		t.Errorf("name with department Engineering: %v", got)
	}
	raw, err = s.Do(timeout(t), "completion/complete", mcp.CompleteParams(mcp.TemplateRef("demo://resource/dynamic/text/{resourceId}"), "resourceId", "12", nil), session.CallOptions{})
	if c, cerr := mcp.ReadCompleteResult(raw); err != nil || cerr != nil || strings.Join(c.Values, ",") != "12" {
		t.Errorf("template completion: %v %v %s", err, cerr, raw)
	}
}

func TestInteropEverythingLogging(t *testing.T) {
	s := peer(t, "server-everything", "stdio").Session
	sub := s.Subscribe()
	defer sub.Close()
	level, _ := mcp.SetLevelParams("debug")
	if _, err := s.Do(timeout(t), "logging/setLevel", level, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	toggle, _ := mcp.CallToolParams("toggle-simulated-logging", nil)
	if _, err := s.Do(timeout(t), "tools/call", toggle, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	// The first simulated message comes at once, at a random level.
	p := notification(t, sub, mcp.LogMessage, func(json.RawMessage) bool { return true })
	e, err := mcp.ParseLogMessage(p)
	if err != nil || e.Problem != "" || mcp.LevelRank(e.Level) < 0 || !strings.Contains(string(e.Data), "message") {
		t.Errorf("%v %+v", err, e)
	}
	if _, err := s.Do(timeout(t), "tools/call", toggle, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestInteropFilesystemAndMemoryResources(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := peer(t, "server-filesystem", dir).Session
	if _, err := mcp.ListTools(timeout(t), fs, mcp.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	// It offers tools only: resources/list is refused before it is sent.
	if err := mcp.CheckDeclared(fs.Peer(), "resources/list"); err == nil {
		if _, err := mcp.ListResources(timeout(t), fs, mcp.ListOptions{}); err != nil {
			t.Errorf("declared resources but: %v", err)
		}
	}
	mem := peer(t, "server-memory").Session
	res, err := mcp.ListResources(timeout(t), mem, mcp.ListOptions{})
	if err != nil || len(res.Resources) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	raw, err := mem.Do(timeout(t), "resources/read", mcp.ReadResourceParams(res.Resources[0].URI), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := mcp.ReadReadResult(raw); err != nil || r.Contents[0].MimeType != "application/json" || !json.Valid(r.Contents[0].Bytes()) {
		t.Errorf("%v %s", err, raw)
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

func TestCheckDeclared(t *testing.T) {
	peer := func(caps string) session.PeerInfo {
		return session.PeerInfo{ProtocolVersion: "2025-11-25", Capabilities: json.RawMessage(caps)}
	}
	for _, c := range []struct {
		caps, method string
		refused      bool
	}{
		{`{}`, "tools/list", true},
		{`{}`, "tools/call", true},
		{``, "tools/call", true},
		{`{"tools":{}}`, "tools/call", false},
		{`{"tools":{"listChanged":true}}`, "tools/list", false},
		{`{"tools":{}}`, "prompts/list", true},
		{`{"completions":{}}`, "completion/complete", false},
		{`{}`, "ping", false},
		{`{"tools":7}`, "tools/list", true},
	} {
		err := CheckDeclared(peer(c.caps), c.method)
		if (err != nil) != c.refused {
			t.Errorf("CheckDeclared(%s, %s) = %v; refused want %v", c.caps, c.method, err, c.refused)
			continue
		}
		var ce *CapabilityError
		if err != nil && (!errors.Is(err, ErrNotDeclared) || !errors.As(err, &ce) || namesAFlag(err)) {
			t.Errorf("refusal %v (%T): want a *CapabilityError matching ErrNotDeclared that names no CLI flag", err, err)
		}
	}
	if err := CheckDeclared(session.PeerInfo{}, "tools/list"); err != nil {
		t.Errorf("before initialize: %v; want nil", err)
	}
	// Each era's refusal names the handshake that declared nothing.
	if err := CheckDeclared(peer(`{}`), "tools/list"); err == nil || !strings.Contains(err.Error(), "capability in initialize,") {
		t.Errorf("legacy: %v", err)
	}
	modern := session.PeerInfo{ProtocolVersion: session.Era2026Version, Capabilities: json.RawMessage(`{}`)}
	if err := CheckDeclared(modern, "tools/list"); err == nil || !strings.Contains(err.Error(), "capability in server/discover,") {
		t.Errorf("modern: %v", err)
	}
}

// ListTools sends nothing to a server without tools, unless forced.
func TestListToolsRefusesUndeclared(t *testing.T) {
	a, b := transporttest.Pipe()
	var lists atomic.Int32
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"initialize": func(context.Context, *session.Incoming) (any, error) {
			return json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`), nil
		},
		"tools/list": func(context.Context, *session.Incoming) (any, error) {
			lists.Add(1)
			return map[string]any{"tools": []any{toolEntry("a")}}, nil
		},
	}})
	cli := session.New(a, session.Config{})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	if _, err := cli.Initialize(testContext(t), session.InitializeOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ListTools(testContext(t), cli, ListOptions{}); !errors.Is(err, ErrNotDeclared) || lists.Load() != 0 {
		t.Fatalf("ListTools: %v, %d tools/list sent; want ErrNotDeclared and none", err, lists.Load())
	}
	list, err := ListTools(testContext(t), cli, ListOptions{Force: true})
	if err != nil || len(list.Tools) != 1 || lists.Load() != 1 {
		t.Fatalf("forced ListTools: %v, %d tools, %d sent; want the tool", err, len(list.Tools), lists.Load())
	}
}

// namesAFlag reports whether err's message names a command-line flag
// (--force, --task, --protocol ...): this layer serves the CLI and the
// TUI alike, and each says in its own words how its user goes on.
func namesAFlag(err error) bool { return flagName.MatchString(err.Error()) }

var flagName = regexp.MustCompile(`(^|[\s(])--[a-z]`)

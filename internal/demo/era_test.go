package demo

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The demo is dual-era: server/discover names every version it speaks
// and what initialize declares; a modern result says resultType, who
// answered and, for a list, how long it keeps.
func TestDemoServesTheModernEra(t *testing.T) {
	cli, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	peer, err := cli.Discover(ctx, session.DiscoverOptions{Era2026Options: session.Era2026Options{ClientInfo: session.Implementation{Name: "t", Version: "0"}}})
	if err != nil {
		t.Fatal(err)
	}
	if peer.ServerInfo.Name != ServerName || peer.SupportedVersions[0] != session.Era2026Version ||
		len(peer.SupportedVersions) != len(session.AllVersions()) || !strings.Contains(string(peer.Capabilities), `"tools"`) {
		t.Fatalf("peer %+v", peer)
	}
	res, err := cli.Do(ctx, "tools/list", nil, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	meta := mcp.ReadResultMeta(res)
	if meta.Type != "complete" || meta.ServerInfo == nil || meta.ServerInfo.Name != ServerName || meta.Describe() != "ttl 60s, cache public" {
		t.Fatalf("tools/list result meta %+v", meta)
	}
	res, err = cli.Do(ctx, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`), session.CallOptions{})
	if meta := mcp.ReadResultMeta(res); err != nil || meta.Type != "complete" || meta.TTL != nil {
		t.Fatalf("tools/call: %s %v", res, err)
	}
}

// A modern request of a version the demo does not speak gets
// UnsupportedProtocolVersion naming those it does; a legacy one is served
// as ever, without the modern fields.
func TestDemoRefusesAnUnknownModernVersion(t *testing.T) {
	cli, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	_, err := cli.Do(ctx, "tools/list", json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}`), session.CallOptions{})
	vr, ok := session.AsVersionRefused(err, "")
	if !ok || vr.Requested != "2027-01-01" || vr.Supported[0] != session.Era2026Version {
		t.Fatalf("err %v", err)
	}
	res, err := cli.Do(ctx, "tools/list", nil, session.CallOptions{})
	if err != nil || strings.Contains(string(res), "resultType") {
		t.Fatalf("legacy tools/list: %s %v", res, err)
	}
}

// subscriptions/listen is acknowledged with its id, and stays open until
// the client closes it.
func TestDemoAcknowledgesASubscription(t *testing.T) {
	cli, log := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cli.UseEra2026(session.Era2026Options{})
	events := cli.Subscribe()
	defer events.Close()
	c, err := mcp.Listen(ctx, cli, mcp.ListenFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	e := waitFor(t, events, func(e session.Event) bool { _, ok := e.(session.SubscriptionNotified); return ok })
	if n := e.(session.SubscriptionNotified); n.Note.Method != "notifications/subscriptions/acknowledged" || n.Ref.Seq != c.Seq() {
		t.Fatalf("note %+v", n)
	}
	if err := cli.Request(c.Ref()).Cancel("done"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctx); !errors.Is(err, session.ErrCancelled) {
		t.Fatalf("listen ended with %v", err)
	}
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(log.String(), "method=subscriptions/listen") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(log.String(), `msg="cancel received" id=1 method=subscriptions/listen`) {
		t.Errorf("the demo's log: %s", log.String())
	}
}

// The demo answers each request by the era it names: the methods the
// modern revision removed are unknown to a modern request and served to
// a legacy one; a modern _meta without clientCapabilities is invalid; the
// tasks extension's methods need the extension declared.
func TestDemoAnswersEachRequestByItsEra(t *testing.T) {
	cli, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/clientCapabilities":{}}`
	code := func(err error) int64 {
		var re *session.RPCError
		if errors.As(err, &re) {
			return re.Code
		}
		return 0
	}
	for _, m := range []struct{ method, params string }{
		{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"},` + meta + `}`},
		{"ping", `{` + meta + `}`},
		{"logging/setLevel", `{"level":"info",` + meta + `}`},
		{"resources/subscribe", `{"uri":"demo://ticker",` + meta + `}`},
		{"resources/unsubscribe", `{"uri":"demo://ticker",` + meta + `}`},
	} {
		_, err := cli.Do(ctx, m.method, json.RawMessage(m.params), session.CallOptions{NoProgressToken: true})
		if code(err) != session.CodeMethodNotFound {
			t.Errorf("modern %s: %v, want -32601", m.method, err)
		}
		legacy := strings.Replace(m.params, meta, `"_meta":{}`, 1)
		if _, err := cli.Do(ctx, m.method, json.RawMessage(legacy), session.CallOptions{NoProgressToken: true}); err != nil {
			t.Errorf("legacy %s: %v", m.method, err)
		}
	}
	_, err := cli.Do(ctx, "tools/list", json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"`+session.Era2026Version+`"}}`), session.CallOptions{})
	if code(err) != session.CodeInvalidParams {
		t.Errorf("modern tools/list without clientCapabilities: %v, want -32602", err)
	}
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		_, err := cli.Do(ctx, method, json.RawMessage(`{"taskId":"t-1",`+meta+`}`), session.CallOptions{NoProgressToken: true})
		if code(err) != session.CodeMissingClientCapability {
			t.Errorf("%s without the tasks extension: %v, want -32021", method, err)
		}
	}
}

package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The demo's resources, prompts, completion and logging, read through
// internal/mcp as every client of mcpoke reads them.

func quick(srv *server) {
	srv.tickEvery = 20 * time.Millisecond
	srv.slowStep = 5 * time.Millisecond
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return c
}

func TestResourcesListPagesAndTemplates(t *testing.T) {
	cli, _ := start(t)
	list, err := mcp.ListResources(ctx(t), cli, mcp.ListOptions{})
	if err != nil || list.Incomplete != nil {
		t.Fatalf("%v %v", err, list.Incomplete)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	if got := strings.Join(uris, " "); got != "demo://readme demo://slow demo://ticker demo://logo.png" || list.Pages != 2 {
		t.Errorf("resources %s in %d pages", got, list.Pages)
	}
	tl, err := mcp.ListResourceTemplates(ctx(t), cli, mcp.ListOptions{})
	if err != nil || len(tl.Templates) != 1 {
		t.Fatalf("%v %+v", err, tl)
	}
	if v := strings.Join(tl.Templates[0].Variables, ","); v != "lang,name" {
		t.Errorf("variables %s", v)
	}
	if _, err := cli.Do(ctx(t), "resources/list", map[string]string{"cursor": "nope"}, session.CallOptions{}); !isCode(err, session.CodeInvalidParams) {
		t.Errorf("bad cursor: %v", err)
	}
}

func isCode(err error, code int64) bool {
	var re *session.RPCError
	return errors.As(err, &re) && re.Code == code
}

func read(t *testing.T, cli *session.Session, uri string) (mcp.ReadResult, error) {
	t.Helper()
	raw, err := cli.Do(ctx(t), "resources/read", mcp.ReadResourceParams(uri), session.CallOptions{})
	if err != nil {
		return mcp.ReadResult{}, err
	}
	return mcp.ReadReadResult(raw)
}

func TestReadTextBlobTemplateAndUnknown(t *testing.T) {
	cli, _ := start(t)
	r, err := read(t, cli, "demo://readme")
	if err != nil || len(r.Contents) != 1 || r.Contents[0].Text == nil || !strings.HasPrefix(*r.Contents[0].Text, "# mcpoke demo server") {
		t.Fatalf("readme: %v %+v", err, r)
	}
	r, err = read(t, cli, "demo://logo.png")
	if err != nil || !r.Contents[0].IsBlob || !bytes.HasPrefix(r.Contents[0].Blob, []byte("\x89PNG")) || r.Contents[0].MimeType != "image/png" {
		t.Fatalf("logo: %v %+v", err, r)
	}
	uri, err := mcp.ExpandTemplate(greetingTemplate.URITemplate, map[string]string{"lang": "fr", "name": "Ada Lovelace"})
	if err != nil || uri != "demo://greeting/fr/Ada%20Lovelace" {
		t.Fatalf("expand: %v %s", err, uri)
	}
	r, err = read(t, cli, uri)
	if err != nil || *r.Contents[0].Text != "Bonjour, Ada Lovelace !" {
		t.Fatalf("greeting: %v %+v", err, r)
	}
	if _, err := read(t, cli, "demo://nothing"); !isCode(err, CodeResourceNotFound) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := read(t, cli, "demo://greeting/xx/Ada"); !isCode(err, session.CodeInvalidParams) {
		t.Errorf("unknown language: %v", err)
	}
}

func TestSlowReadReportsProgressAndStopsWhenCancelled(t *testing.T) {
	cli, log := startServer(t, func(s *server) { s.slowStep = 200 * time.Millisecond })
	sub := cli.Subscribe()
	defer sub.Close()
	c, err := cli.Call(ctx(t), "resources/read", mcp.ReadResourceParams(slowURI), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, func(e session.Event) bool { _, ok := e.(session.ProgressUpdated); return ok })
	if err := cli.Request(c.Ref()).Cancel("too slow"); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := c.Result(); st != session.Cancelled {
		t.Fatalf("state %v", st)
	}
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(log.String(), "slow read stopped") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(log.String(), "slow read stopped") {
		t.Errorf("log:\n%s", log)
	}
	// The server sends no response after the cancel.
	if _, err := cli.Do(ctx(t), "ping", nil, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if info, _ := cli.Request(c.Ref()).Info(); info.LateCount != 0 {
		t.Errorf("late traffic: %+v", info.Late)
	}
}

func TestSubscribeNotifiesAtEachTickUntilUnsubscribed(t *testing.T) {
	cli, _ := startServer(t, quick)
	sub := cli.Subscribe()
	defer sub.Close()
	if _, err := cli.Do(ctx(t), "resources/subscribe", mcp.ReadResourceParams(tickerURI), session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		e := waitFor(t, sub, func(e session.Event) bool {
			n, ok := e.(session.NotificationArrived)
			return ok && n.Method == mcp.ResourceUpdated
		}).(session.NotificationArrived)
		if uri, err := mcp.ParseResourceUpdated(e.Params); err != nil || uri != tickerURI {
			t.Fatalf("updated %q %v", uri, err)
		}
	}
	before, _ := read(t, cli, tickerURI)
	time.Sleep(50 * time.Millisecond)
	after, _ := read(t, cli, tickerURI)
	if *before.Contents[0].Text == *after.Contents[0].Text {
		t.Errorf("the ticker did not change: %s", *after.Contents[0].Text)
	}
	if _, err := cli.Do(ctx(t), "resources/unsubscribe", mcp.ReadResourceParams(tickerURI), session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Do(ctx(t), "resources/subscribe", mcp.ReadResourceParams("demo://nothing"), session.CallOptions{}); !isCode(err, CodeResourceNotFound) {
		t.Errorf("subscribe to nothing: %v", err)
	}
	// goleak (TestMain) checks that the watcher ended.
}

func TestSubscriptionEndsWithTheSession(t *testing.T) {
	cli, _ := startServer(t, quick)
	if _, err := cli.Do(ctx(t), "resources/subscribe", mcp.ReadResourceParams(tickerURI), session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	// Cleanup closes both sessions; goleak checks that the watcher ended.
}

func TestPrompts(t *testing.T) {
	cli, _ := start(t)
	list, err := mcp.ListPrompts(ctx(t), cli, mcp.ListOptions{})
	if err != nil || len(list.Prompts) != 2 || list.Prompts[0].Name != "review" || !list.Prompts[0].Arguments[0].Required {
		t.Fatalf("%v %+v", err, list)
	}
	params, _ := mcp.GetPromptParams("review", json.RawMessage(`{"code":"x := 1","language":"go"}`))
	raw, err := cli.Do(ctx(t), "prompts/get", params, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := mcp.ReadPromptResult(raw)
	if err != nil || len(res.Messages) != 2 || res.Messages[0].Role != "user" || !strings.Contains(string(res.Messages[0].Content), "this go code") {
		t.Fatalf("%v %+v", err, res)
	}
	params, _ = mcp.GetPromptParams("review", nil)
	if _, err := cli.Do(ctx(t), "prompts/get", params, session.CallOptions{}); !isCode(err, session.CodeInvalidParams) {
		t.Errorf("missing argument: %v", err)
	}
	params, _ = mcp.GetPromptParams("nope", nil)
	if _, err := cli.Do(ctx(t), "prompts/get", params, session.CallOptions{}); !isCode(err, session.CodeInvalidParams) {
		t.Errorf("unknown prompt: %v", err)
	}
}

func TestSlowPromptStopsWhenCancelled(t *testing.T) {
	cli, log := start(t)
	params, _ := mcp.GetPromptParams("slow", json.RawMessage(`{"seconds":"30"}`))
	c, err := cli.Call(ctx(t), "prompts/get", params, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Request(c.Ref()).Cancel("enough"); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := c.Result(); st != session.Cancelled {
		t.Fatalf("state %v", st)
	}
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(log.String(), "slow prompt stopped") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(log.String(), "slow prompt stopped") {
		t.Errorf("log:\n%s", log)
	}
}

func complete(t *testing.T, cli *session.Session, ref mcp.CompletionRef, arg, value string) mcp.Completion {
	t.Helper()
	raw, err := cli.Do(ctx(t), "completion/complete", mcp.CompleteParams(ref, arg, value, nil), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcp.ReadCompleteResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompletion(t *testing.T) {
	cli, _ := start(t)
	if c := complete(t, cli, mcp.PromptRef("review"), "language", "ja"); strings.Join(c.Values, ",") != "java,javascript" || c.Total == nil || *c.Total != 2 {
		t.Errorf("language ja: %+v", c)
	}
	if c := complete(t, cli, mcp.TemplateRef(greetingTemplate.URITemplate), "name", "a"); strings.Join(c.Values, ",") != "Ada,Alan" {
		t.Errorf("name a: %+v", c)
	}
	if c := complete(t, cli, mcp.PromptRef("review"), "code", ""); len(c.Values) != 0 {
		t.Errorf("code completes to nothing: %+v", c)
	}
}

func TestLoggingRespectsTheLevel(t *testing.T) {
	cli, _ := start(t)
	sub := cli.Subscribe()
	defer sub.Close()
	logged := func() []mcp.LogEntry {
		// A ping answered means every notification sent before it came.
		if _, err := cli.Do(ctx(t), "ping", nil, session.CallOptions{}); err != nil {
			t.Fatal(err)
		}
		var out []mcp.LogEntry
		for {
			select {
			case e := <-sub.C:
				if n, ok := e.(session.NotificationArrived); ok && n.Method == mcp.LogMessage {
					entry, err := mcp.ParseLogMessage(n.Params)
					if err != nil || entry.Problem != "" {
						t.Fatalf("%v %+v", err, entry)
					}
					out = append(out, entry)
				}
			case <-time.After(50 * time.Millisecond):
				return out
			}
		}
	}
	complete(t, cli, mcp.PromptRef("review"), "language", "g")
	if got := logged(); len(got) != 0 {
		t.Errorf("debug sent at the default level: %+v", got)
	}
	p, _ := mcp.SetLevelParams("debug")
	if _, err := cli.Do(ctx(t), "logging/setLevel", p, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	complete(t, cli, mcp.PromptRef("review"), "language", "g")
	got := logged()
	if len(got) != 2 || got[0].Level != "notice" || got[1].Level != "debug" || got[1].Logger != "completion" {
		t.Errorf("after setLevel debug: %+v", got)
	}
	if _, err := cli.Do(ctx(t), "logging/setLevel", map[string]string{"level": "loud"}, session.CallOptions{}); !isCode(err, session.CodeInvalidParams) {
		t.Errorf("unknown level: %v", err)
	}
}

func TestConformanceFixtures(t *testing.T) {
	cli, _ := startServer(t, func(s *server) { s.fixtures = true })
	r, err := read(t, cli, "test://template/123/data")
	if err != nil || !strings.Contains(*r.Contents[0].Text, `"id":"123"`) {
		t.Fatalf("%v %+v", err, r)
	}
	list, err := mcp.ListPrompts(ctx(t), cli, mcp.ListOptions{})
	if err != nil || len(list.Prompts) != 7 {
		t.Fatalf("%v %d prompts", err, len(list.Prompts))
	}
	params, _ := mcp.GetPromptParams("test_prompt_with_embedded_resource", json.RawMessage(`{"resourceUri":"test://x"}`))
	raw, err := cli.Do(ctx(t), "prompts/get", params, session.CallOptions{})
	if err != nil || !strings.Contains(string(raw), `"type":"resource"`) {
		t.Fatalf("%v %s", err, raw)
	}
	// Without the fixtures, none of it.
	plain, _ := start(t)
	if _, err := read(t, plain, "test://static-text"); !isCode(err, CodeResourceNotFound) {
		t.Errorf("a fixture without the option: %v", err)
	}
}

package ui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// askingServer is a fake server that asks the client things: its session
// sends sampling and elicitation requests the UI must answer.
type askingServer struct {
	*fakeServer
	declared chan json.RawMessage // what the client's initialize declared
}

// answeringConnector is Options.ConnectAnswering on a pipe to a fake
// server, once, on clock.
func answeringConnector(t *testing.T, clock *clocktest.Clock) (func(context.Context, *mcp.ClientSide) (*connect.Conn, error), *askingServer) {
	a, b := transporttest.Pipe()
	fs := newFakeServer(t, b, defaultFakeTools())
	as := &askingServer{fakeServer: fs, declared: make(chan json.RawMessage, 1)}
	used := false
	return func(_ context.Context, cs *mcp.ClientSide) (*connect.Conn, error) {
		if used {
			return nil, io.EOF
		}
		used = true
		o := connect.Options{Session: session.Config{Clock: clock}}
		cs.Install(&o.Session)
		o.Capabilities = cs.Capabilities("")
		as.declared <- o.Capabilities
		conn := connect.Attach(connect.Spec{Name: "fake"}, a, o)
		t.Cleanup(func() { conn.Close() })
		return conn, nil
	}, as
}

// newAnsweringModel is a model whose server asks it things.
func newAnsweringModel(t *testing.T, w, h int, policy mcp.Policy) (*driver, *askingServer) {
	clock := newFakeClock()
	connect, as := answeringConnector(t, clock)
	m := New(Options{ConnectAnswering: connect, Policy: policy, Roots: []mcp.Root{{URI: "file:///srv/one", Name: "one"}},
		now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, w, h)
	d.waitFor("tools listed", func() bool {
		return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] == 2
	})
	return d, as
}

// ask sends a request from the server to the UI.
func (as *askingServer) ask(t *testing.T, method, params string) *session.Call {
	t.Helper()
	c, err := as.srv.Call(context.Background(), method, json.RawMessage(params), session.CallOptions{NoProgressToken: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// outcome waits for the answer to c, handling the UI's messages.
func (d *driver) outcome(c *session.Call) (json.RawMessage, error) {
	d.t.Helper()
	d.waitFor("the server's request answered", func() bool {
		select {
		case <-c.Done():
			return true
		default:
			return false
		}
	})
	res, _, err := c.Result()
	return res, err
}

const samplingParams = `{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],` +
	`"systemPrompt":"You are terse.","modelPreferences":{"hints":[{"name":"claude-3"}],"speedPriority":0.8},"maxTokens":64}`

const formParams = `{"message":"Tell us about you","requestedSchema":{"type":"object","properties":{` +
	`"name":{"type":"string","default":"Ada"},"age":{"type":"integer","default":36},` +
	`"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Wonder Woman"}],"default":"h2"},` +
	`"fish":{"type":"array","items":{"anyOf":[{"const":"f1","title":"Tuna"},{"const":"f2","title":"Trout"}]},"default":["f1"]},` +
	`"ok":{"type":"boolean","default":true}},"required":["name"]}}`

// The UI declares everything: a person is there to answer.
func TestUIDeclaresWhatItAnswers(t *testing.T) {
	d, as := newAnsweringModel(t, 140, 30, mcp.Policy{})
	declared, _ := recvWithin(t, as.declared, "the capabilities the UI declares")
	caps := string(declared)
	for _, want := range []string{`"roots":{"listChanged":true}`, `"sampling":{}`, `"elicitation":{"form":{},"url":{}}`, `"tasks":`} {
		if !strings.Contains(caps, want) {
			t.Errorf("declared %s, lacks %s", caps, want)
		}
	}
	d.waitScreen("tools ⇄ roots,sampling,elicit,tasks")
	res, err := d.outcome(as.ask(t, "roots/list", `{}`))
	if err != nil || string(res) != `{"roots":[{"uri":"file:///srv/one","name":"one"}]}` {
		t.Fatalf("roots/list: %s %v", res, err)
	}
}

func TestSamplingPanelShowsTheRequestAndSendsTheReply(t *testing.T) {
	d, as := newAnsweringModel(t, 120, 34, mcp.Policy{})
	c := as.ask(t, "sampling/createMessage", samplingParams)
	d.waitScreen("THE SERVER ASKS · sampling #1", "from fake-server · sampling/createMessage",
		"user      What is the capital of France?", "You are terse.", `hints "claude-3" · speed 0.8`, "max tokens 64",
		"ctrl+s send • ctrl+x decline • esc later")
	d.key("ctrl+s")
	d.waitScreen("write a reply first")
	d.typeText("Paris.")
	d.key("ctrl+s")
	res, err := d.outcome(c)
	if err != nil || !strings.Contains(string(res), `"text":"Paris."`) || !strings.Contains(string(res), `"model":"mcpoke (no model: written by a person)"`) {
		t.Fatalf("result %s %v", res, err)
	}
	d.waitScreen("← sampling/createM", "answered replied")
	if d.m.asks.panel != nil {
		t.Error("the panel stayed open")
	}
}

func TestSamplingPanelDeclines(t *testing.T) {
	d, as := newAnsweringModel(t, 120, 30, mcp.Policy{})
	c := as.ask(t, "sampling/createMessage", samplingParams)
	d.waitScreen("THE SERVER ASKS · sampling #1")
	d.key("ctrl+x")
	_, err := d.outcome(c)
	var rpcErr *session.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeSamplingRejected {
		t.Fatalf("declined: %v", err)
	}
	// Declined, never "answered".
	d.waitScreen("✗ failed            0.0s declined User rejected", "DETAIL incoming #1")
	if strings.Contains(d.screen(), "answered") {
		t.Fatalf("a declined question shows as answered:\n%s", d.screen())
	}
}

// The form starts on the schema's defaults (SEP-1034), titled enums show
// their titles, and a multi-select toggles with space.
func TestElicitationFormAcceptsWithDefaults(t *testing.T) {
	d, as := newAnsweringModel(t, 120, 40, mcp.Policy{})
	c := as.ask(t, "elicitation/create", formParams)
	d.waitScreen("THE SERVER ASKS · elicitation (form) #1", "Tell us about you", "[Ada", "‹ Wonder Woman ›",
		"[x] Tuna  [ ] Trout", "enter accept")
	d.key("tab")
	d.key("tab")
	d.key("tab") // fish
	d.key("right")
	d.key("space")
	d.waitScreen("[x] Tuna  [x] Trout")
	d.key("enter")
	res, err := d.outcome(c)
	want := `{"action":"accept","content":{"name":"Ada","age":36,"hero":"h2","fish":["f1","f2"],"ok":true}}`
	if err != nil || string(res) != want {
		t.Fatalf("got %s %v\nwant %s", res, err, want)
	}
}

func TestElicitationDeclineAndCancel(t *testing.T) {
	d, as := newAnsweringModel(t, 120, 40, mcp.Policy{})
	for _, tc := range []struct{ key, want string }{{"ctrl+x", "decline"}, {"ctrl+g", "cancel"}} {
		c := as.ask(t, "elicitation/create", formParams)
		d.waitFor("the panel", func() bool { return d.m.asks.panel != nil })
		d.key(tc.key)
		if res, err := d.outcome(c); err != nil || string(res) != `{"action":"`+tc.want+`"}` {
			t.Fatalf("%s: %s %v", tc.key, res, err)
		}
	}
}

// esc leaves the question waiting; enter on its row opens it again.
func TestLaterLeavesTheQuestionWaiting(t *testing.T) {
	d, as := newAnsweringModel(t, 120, 30, mcp.Policy{})
	c := as.ask(t, "elicitation/create", formParams)
	d.waitScreen("THE SERVER ASKS")
	d.key("esc")
	d.waitScreen("← elicitation/crea", "waiting for you (enter answers)", "waiting for you · press enter on the row to answer")
	d.key("enter")
	d.waitScreen("THE SERVER ASKS · elicitation (form) #1")
	d.key("ctrl+x")
	if _, err := d.outcome(c); err != nil {
		t.Fatal(err)
	}
}

// A second question while a panel is open waits its turn.
func TestQuestionsWhilePanelOpenWait(t *testing.T) {
	d, as := newAnsweringModel(t, 140, 30, mcp.Policy{})
	first := as.ask(t, "elicitation/create", formParams)
	d.waitScreen("elicitation (form) #1")
	second := as.ask(t, "sampling/createMessage", samplingParams)
	d.waitScreen("sampling #2 waits for you")
	d.key("ctrl+g")
	d.outcome(first)
	d.waitScreen("waiting for you")
	if d.m.focus != focusTools {
		t.Fatalf("after the question the focus is on %v, not back on the tools it came from", d.m.focus)
	}
	d.m.setFocus(focusRequests) // the person goes to the waiting row
	d.m.table.SelectSeq(d.m.store.Rows[len(d.m.store.Rows)-1].Seq)
	d.key("enter")
	d.waitScreen("THE SERVER ASKS · sampling #2")
	d.key("ctrl+x")
	d.outcome(second)
}

func TestURLElicitationOpensWithBrowser(t *testing.T) {
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", script)
	d, as := newAnsweringModel(t, 120, 30, mcp.Policy{})
	url := "https://xn--80ak6aa92e.com/login?x=\u202eevil"
	c := as.ask(t, "elicitation/create", `{"mode":"url","message":"Link your account","url":"`+url+`","elicitationId":"e-1"}`)
	d.waitScreen("elicitation (url) #1", "Link your account", "host xn--80ak6aa92e.com", "⚠ the host is in punycode",
		`x=\u202eevil`, "o open URL & accept")
	if strings.Contains(d.screen(), "\u202e") {
		t.Error("the URL's bidi control reached the screen")
	}
	d.key("o")
	res, err := d.outcome(c)
	if err != nil || string(res) != `{"action":"accept"}` {
		t.Fatalf("result %s %v", res, err)
	}
	var got []byte
	d.waitFor("the browser started", func() bool { got, _ = os.ReadFile(opened); return len(got) > 0 })
	if string(got) != url {
		t.Fatalf("opened %q, want %q", got, url)
	}
	// The server says the flow is done; an unknown id is ignored.
	_ = as.srv.Notify("notifications/elicitation/complete", map[string]string{"elicitationId": "e-1"})
	d.waitScreen("completed by server")
	_ = as.srv.Notify("notifications/elicitation/complete", map[string]string{"elicitationId": "nope"})
	d.waitScreen(`for an unknown or finished elicitation "nope": ignored`)
}

func TestURLElicitationWithoutBrowserStaysOpen(t *testing.T) {
	t.Setenv("BROWSER", "")
	d, as := newAnsweringModel(t, 120, 30, mcp.Policy{})
	c := as.ask(t, "elicitation/create", `{"mode":"url","message":"m","url":"https://example.com/a","elicitationId":"e"}`)
	d.waitScreen("elicitation (url) #1")
	d.key("o")
	d.waitScreen("$BROWSER is not set")
	if d.m.asks.panel == nil {
		t.Fatal("the panel closed without an answer")
	}
	d.key("enter")
	if res, err := d.outcome(c); err != nil || string(res) != `{"action":"accept"}` {
		t.Fatalf("%s %v", res, err)
	}
}

// The server cancels its request: the panel closes, the row says so with
// the server's reason, and nothing is sent.
func TestServerCancelClosesThePanel(t *testing.T) {
	d, as := newAnsweringModel(t, 120, 30, mcp.Policy{})
	c := as.ask(t, "elicitation/create", formParams)
	d.waitScreen("THE SERVER ASKS")
	if err := as.srv.Request(c.Ref()).Cancel("the user took too long"); err != nil {
		t.Fatal(err)
	}
	d.waitScreen("cancelled by server: the user took too long", "the panel closed and no answer is sent")
	if d.m.asks.panel != nil {
		t.Fatal("the panel is still open")
	}
	d.key("tab")
	d.waitScreen("cancelled by server: the user took too long · at +0.0s · no answer sent, as the spec asks")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := as.srv.Do(ctx, "ping", nil, session.CallOptions{NoProgressToken: true}); err != nil {
		t.Fatal(err)
	}
	if info, _ := as.srv.Request(c.Ref()).Info(); info.LateCount != 0 {
		t.Fatalf("the client answered after the cancel: %+v", info.Late)
	}
}

// An answer the person gives after the server withdrew the question is
// refused and the row says it was not sent.
func TestAnswerAfterWithdrawalIsNotSent(t *testing.T) {
	d, as := newAnsweringModel(t, 120, 30, mcp.Policy{})
	c := as.ask(t, "sampling/createMessage", samplingParams)
	d.waitFor("the panel", func() bool { return d.m.asks.panel != nil })
	q := d.m.asks.panel.q
	_ = as.srv.Request(c.Ref()).Cancel("gave up")
	recvWithin(t, q.Withdrawn(), "the question withdrawn after its request's cancel")
	// The person's key races the withdrawal: the answer goes to a
	// question already withdrawn.
	d.m.store.AskNote(q.Ref.Seq).Answer = "replied"
	d.send(answerCmd(d.m.gen, q, "replied", mcp.SamplingText("late", mcp.SamplingModel), nil)())
	d.waitScreen("your answer (replied) was not sent: cancelled by the server: gave up")
}

// A policy (--elicit) answers without opening a panel.
func TestPolicyAnswersWithoutAPanel(t *testing.T) {
	pol, _ := mcp.ParseElicitPolicy("accept-defaults")
	d, as := newAnsweringModel(t, 140, 30, mcp.Policy{Elicit: pol})
	res, err := d.outcome(as.ask(t, "elicitation/create", formParams))
	if err != nil || !strings.Contains(string(res), `"name":"Ada"`) {
		t.Fatalf("%s %v", res, err)
	}
	d.waitScreen("← elicitation/create", "answered", "elicitation (form) #1: accept with the schema's defaults (--elicit accept-defaults)")
	if d.m.asks.panel != nil {
		t.Error("a panel opened")
	}
}

// A task-augmented request is answered with its task at once; the row
// follows the task, and the server's tasks/cancel withdraws the panel.
func TestTaskAugmentedQuestion(t *testing.T) {
	d, as := newAnsweringModel(t, 140, 30, mcp.Policy{})
	res, err := d.outcome(as.ask(t, "sampling/createMessage", `{"messages":[],"maxTokens":5,"task":{"ttl":60000}}`))
	if err != nil || !strings.Contains(string(res), `"taskId":"mcpoke-task-1"`) {
		t.Fatalf("CreateTaskResult: %s %v", res, err)
	}
	d.waitScreen("as task mcpoke-task-1")
	if _, err := d.outcome(as.ask(t, "tasks/cancel", `{"taskId":"mcpoke-task-1"}`)); err != nil {
		t.Fatal(err)
	}
	d.waitScreen("the server cancelled the task (tasks/cancel)", "task cancelled by server")
	if d.m.asks.panel != nil {
		t.Error("the panel is still open")
	}
}

// a adds a root: the server is told its roots changed.
func TestAddRootNotifiesTheServer(t *testing.T) {
	d, as := newAnsweringModel(t, 140, 30, mcp.Policy{})
	dir := t.TempDir()
	d.key("a")
	d.waitScreen("add a root (a directory):")
	d.typeText(dir)
	d.key("enter")
	d.waitScreen("added (2 in all); notifications/roots/list_changed sent")
	res, err := d.outcome(as.ask(t, "roots/list", `{}`))
	if err != nil || !strings.Contains(string(res), `"file://`+dir+`"`) {
		t.Fatalf("roots/list: %s %v", res, err)
	}
	d.key("w")
	d.waitScreen("notifications/roots/list_changed")
}

// The golden: a form elicitation the server cancels, before and after.
func TestFlowServerCancelledElicitation(t *testing.T) {
	clock := newFakeClock()
	connect, as := answeringConnector(t, clock)
	m := New(Options{ConnectAnswering: connect, now: clock.Now, static: true, frameInterval: time.Millisecond})
	p := &probe{m: m}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(flowWidth, flowHeight),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	f := &flow{t: t, tm: tm, p: p, clock: clock}
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	})
	f.waitScreen("2 completed")
	c := as.ask(t, "elicitation/create", formParams)
	f.golden("asked", "THE SERVER ASKS · elicitation (form) #1", "[x] Tuna")
	clock.Advance(3 * time.Second)
	if err := as.srv.Request(c.Ref()).Cancel("no answer within 3s"); err != nil {
		t.Fatal(err)
	}
	f.golden("cancelled", "cancelled by server: no answer within 3s", "the panel closed")
}

// Everything a question says is the server's: escaped in the panel and
// the detail, however it is sent.
func TestQuestionsAreEscaped(t *testing.T) {
	d, as := newAnsweringModel(t, 200, 40, mcp.Policy{})
	h, _ := json.Marshal(hostile)
	c := as.ask(t, "sampling/createMessage", `{"messages":[{"role":`+string(h)+`,"content":{"type":"text","text":`+string(h)+`}}],`+
		`"systemPrompt":`+string(h)+`,"modelPreferences":{"hints":[{"name":`+string(h)+`}]},"maxTokens":5}`)
	d.waitScreen("THE SERVER ASKS · sampling #1", `\x1b]0;pwned`)
	assertNoRawControls(t, d)
	d.key("ctrl+x")
	d.outcome(c)
	c = as.ask(t, "elicitation/create", `{"message":`+string(h)+`,"requestedSchema":{"type":"object","properties":{"x":{"type":"string","title":`+
		string(h)+`,"enum":["a",`+string(h)+`]}}}}`)
	d.waitScreen("elicitation (form) #2", `\u202eevil`)
	assertNoRawControls(t, d)
	d.key("esc")
	d.waitScreen("waiting for you")
	assertNoRawControls(t, d)
	d.key("enter")
	d.key("ctrl+g")
	d.outcome(c)
}

// The status line numbers a request by its JSON-RPC id, as the table and
// the wire do: a question of the server's takes a row (and a Seq) but no
// id of ours, so the two drift apart after one.
func TestStatusNumbersRequestsByTheirID(t *testing.T) {
	d, as := newAnsweringModel(t, 140, 30, mcp.Policy{})
	c := as.ask(t, "sampling/createMessage", samplingParams)
	d.waitFor("the panel", func() bool { return d.m.asks.panel != nil })
	d.key("ctrl+x")
	if _, err := d.outcome(c); err == nil {
		t.Fatal("the declined question got a result")
	}
	d.m.setFocus(focusTools)
	d.m.tools.Select("sleep")
	d.key("enter")
	d.key("enter")
	var row *rows.Row
	d.waitFor("the tools/call row", func() bool {
		for _, r := range d.m.store.Rows {
			if r.Method == "tools/call" {
				row = r
				return true
			}
		}
		return false
	})
	if strconv.FormatUint(row.Seq, 10) == row.ID.String() {
		t.Fatalf("seq %d and id %s agree: the test shows nothing", row.Seq, row.ID)
	}
	d.waitScreen("sent tools/call sleep as request #" + row.ID.String())
}

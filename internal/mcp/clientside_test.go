package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// clientPair is a client session with a ClientSide and the server session
// that asks it things.
type clientPair struct {
	cs     *ClientSide
	client *session.Session
	server *session.Session
	clock  *clocktest.Clock
	events chan any
	asked  chan *Question
}

// newClientPair connects a ClientSide declaring f to a bare server
// session. Questions go to asked unless ask is given.
func newClientPair(t *testing.T, f ClientFeatures, ask Asker, roots ...Root) *clientPair {
	t.Helper()
	p := &clientPair{clock: clocktest.New(clocktest.Async()), events: make(chan any, 64), asked: make(chan *Question, 16)}
	if ask == nil {
		ask = func(q *Question) { p.asked <- q }
	}
	p.cs = NewClientSide(ClientSideOptions{Features: f, Roots: NewRootList(roots...), Ask: ask, Clock: p.clock,
		Event: func(e any) { p.events <- e }})
	a, b := transporttest.Pipe()
	cfg := session.Config{}
	p.cs.Install(&cfg)
	p.client = session.New(a, cfg)
	p.server = session.New(b, session.Config{})
	t.Cleanup(func() { p.client.Close(); p.server.Close() })
	return p
}

// ask sends method from the server and returns its call.
func (p *clientPair) ask(t *testing.T, method, params string) *session.Call {
	t.Helper()
	c, err := p.server.Call(context.Background(), method, json.RawMessage(params), session.CallOptions{NoProgressToken: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (p *clientPair) question(t *testing.T) *Question {
	t.Helper()
	select {
	case q := <-p.asked:
		return q
	case <-time.After(5 * time.Second):
		t.Fatal("no question asked")
	}
	return nil
}

func result(t *testing.T, c *session.Call) (json.RawMessage, error) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("no answer")
	}
	res, _, err := c.Result()
	return res, err
}

func rpcCode(err error) int64 {
	var e *session.RPCError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestCapabilitiesDeclareOnlyWhatIsAnswered(t *testing.T) {
	all := ClientFeatures{Roots: true, Sampling: true, ElicitForm: true, ElicitURL: true, Tasks: true}
	for _, tc := range []struct {
		name    string
		f       ClientFeatures
		version string
		want    string
	}{
		{"none", ClientFeatures{}, "", `{}`},
		{"all", all, "2025-11-25", `{"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true},"sampling":{},` +
			`"tasks":{"cancel":{},"list":{},"requests":{"elicitation":{"create":{}},"sampling":{"createMessage":{}}}}}`},
		{"2025-06-18 has no modes nor tasks", all, "2025-06-18", `{"elicitation":{},"roots":{"listChanged":true},"sampling":{}}`},
		{"2025-06-18 url only is nothing", ClientFeatures{ElicitURL: true}, "2025-06-18", `{}`},
		{"2025-03-26 has no elicitation", all, "2025-03-26", `{"roots":{"listChanged":true},"sampling":{}}`},
		{"tasks need something to run", ClientFeatures{Roots: true, Tasks: true}, "", `{"roots":{"listChanged":true}}`},
		{"sampling tasks only", ClientFeatures{Sampling: true, Tasks: true}, "",
			`{"sampling":{},"tasks":{"cancel":{},"list":{},"requests":{"sampling":{"createMessage":{}}}}}`},
	} {
		if got := string(tc.f.Capabilities(tc.version)); got != tc.want {
			t.Errorf("%s: got %s\nwant %s", tc.name, got, tc.want)
		}
		if back := ParseClientCapabilities(tc.f.Capabilities("")); tc.version == "" && back != tc.f && tc.name != "tasks need something to run" {
			t.Errorf("%s: read back as %+v", tc.name, back)
		}
	}
	if got := all.Describe(""); got != "roots (listChanged), sampling, elicitation (form, url), tasks (sampling/createMessage, elicitation/create)" {
		t.Errorf("describe: %s", got)
	}
	if got := DescribeCapabilities(json.RawMessage(`{"tools":{},"logging":{},"zzz":{},"tasks":{"requests":{"tools":{"call":{}}}}}`)); got != "tools, logging, tasks (tools/call), zzz" {
		t.Errorf("describe server: %s", got)
	}
	if got := all.ForVersion("2025-06-18"); got.ElicitURL || got.Tasks || !got.ElicitForm || !got.Sampling {
		t.Errorf("2025-06-18 answers %+v", got)
	}
	if got := all.ForVersion("2025-03-26"); got.Elicitation() || !got.Roots {
		t.Errorf("2025-03-26 answers %+v", got)
	}
	if got := ParseClientCapabilities(json.RawMessage(`{"elicitation":{}}`)); !got.ElicitForm || got.ElicitURL {
		t.Errorf("elicitation {} is form only: %+v", got)
	}
}

// A feature not declared has no handler: the session answers -32601.
func TestUndeclaredFeaturesAreMethodNotFound(t *testing.T) {
	p := newClientPair(t, ClientFeatures{}, nil)
	for _, m := range []string{"roots/list", "sampling/createMessage", "elicitation/create", "tasks/get"} {
		if _, err := result(t, p.ask(t, m, `{}`)); rpcCode(err) != session.CodeMethodNotFound {
			t.Errorf("%s: %v", m, err)
		}
	}
}

func TestRootsListAnswersTheList(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Roots: true}, nil, Root{URI: "file:///a", Name: "a"})
	res, err := result(t, p.ask(t, "roots/list", `{}`))
	if err != nil || string(res) != `{"roots":[{"uri":"file:///a","name":"a"}]}` {
		t.Fatalf("roots/list: %s %v", res, err)
	}
	sub := p.server.Subscribe()
	defer sub.Close()
	if changed, err := p.cs.AddRoot(p.client, Root{URI: "file:///b"}); !changed || err != nil {
		t.Fatalf("AddRoot: %v %v", changed, err)
	}
	if changed, _ := p.cs.AddRoot(p.client, Root{URI: "file:///b"}); changed {
		t.Fatal("the same root twice changed the list")
	}
	res, _ = result(t, p.ask(t, "roots/list", `{}`))
	if !strings.Contains(string(res), `"file:///b"`) {
		t.Fatalf("roots/list after add: %s", res)
	}
}

// With no roots yet, roots/list answers an empty array: roots is a
// required array in ListRootsResult, and null is not one.
func TestRootsListEmptyIsAnArray(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Roots: true}, nil)
	res, err := result(t, p.ask(t, "roots/list", `{}`))
	if err != nil || string(res) != `{"roots":[]}` {
		t.Fatalf("roots/list: %s %v", res, err)
	}
}

func TestParseRoot(t *testing.T) {
	dir := t.TempDir()
	r, err := ParseRoot(dir, "/")
	if err != nil || r.URI != "file://"+dir || r.Name == "" {
		t.Fatalf("dir: %+v %v", r, err)
	}
	if _, err := ParseRoot("nope", dir); err == nil {
		t.Error("a missing directory is a root")
	}
	if _, err := ParseRoot("https://x", dir); err == nil {
		t.Error("an https URL is a root")
	}
	if r, err := ParseRoot("file:///srv/data", dir); err != nil || r.URI != "file:///srv/data" || r.Name != "data" {
		t.Errorf("file URI: %+v %v", r, err)
	}
}

func TestSamplingAnsweredAndDeclined(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Sampling: true}, nil)
	c := p.ask(t, "sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"capital?"}}],`+
		`"systemPrompt":"be brief","maxTokens":100,"modelPreferences":{"hints":[{"name":"claude"}],"speedPriority":0.5}}`)
	q := p.question(t)
	s := q.Sampling
	if s == nil || s.SystemPrompt != "be brief" || s.MaxTokens != 100 || s.Messages[0].Content[0].Text != "capital?" ||
		s.ModelPreferences.Hints[0] != "claude" || *s.ModelPreferences.SpeedPriority != 0.5 || q.Kind() != "sampling" {
		t.Fatalf("question %+v", s)
	}
	if err := q.Answer(SamplingText("Paris", SamplingModel), nil); err != nil {
		t.Fatal(err)
	}
	if err := q.Answer(SamplingText("twice", SamplingModel), nil); !errors.Is(err, ErrAlreadyAnswered) {
		t.Errorf("second answer: %v", err)
	}
	res, err := result(t, c)
	if err != nil || !strings.Contains(string(res), `"text":"Paris"`) || !strings.Contains(string(res), `"role":"assistant"`) {
		t.Fatalf("result %s %v", res, err)
	}
	c = p.ask(t, "sampling/createMessage", `{"messages":[]}`)
	_ = p.question(t).Answer(nil, SamplingDeclined(""))
	if _, err := result(t, c); rpcCode(err) != CodeSamplingRejected {
		t.Fatalf("declined: %v", err)
	}
	if _, err := result(t, p.ask(t, "sampling/createMessage", `{"maxTokens":1}`)); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("no messages: %v", err)
	}
}

func TestElicitationModesAsDeclared(t *testing.T) {
	p := newClientPair(t, ClientFeatures{ElicitForm: true}, nil)
	if _, err := result(t, p.ask(t, "elicitation/create", `{"mode":"url","message":"m","url":"https://x","elicitationId":"e"}`)); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("url mode not declared: %v", err)
	}
	if _, err := result(t, p.ask(t, "elicitation/create", `{"message":"m"}`)); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("form without schema: %v", err)
	}
	if _, err := result(t, p.ask(t, "elicitation/create", `{"mode":"voice","message":"m"}`)); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("unknown mode: %v", err)
	}
	// No mode is form mode.
	c := p.ask(t, "elicitation/create", `{"message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"age":{"type":"integer"}}}}`)
	q := p.question(t)
	if q.Elicit.Mode != ElicitModeForm || q.Kind() != "elicitation form" || string(q.Elicit.Defaults()) != `{"name":"Ada"}` {
		t.Fatalf("form question %+v", q.Elicit)
	}
	if err := q.Elicit.CheckContent(json.RawMessage(`{"age":"old"}`)); err == nil {
		t.Error("content that breaks the schema passes")
	}
	_ = q.Answer(ElicitResult(ElicitAccept, json.RawMessage(`{"name":"Ada"}`)), nil)
	if res, err := result(t, c); err != nil || string(res) != `{"action":"accept","content":{"name":"Ada"}}` {
		t.Fatalf("accept: %s %v", res, err)
	}
}

// SEP-1034: accept-defaults sends every default, of every type.
func TestElicitPolicyAcceptDefaults(t *testing.T) {
	pol, err := ParseElicitPolicy("accept-defaults")
	if err != nil {
		t.Fatal(err)
	}
	p := newClientPair(t, Policy{Elicit: pol}.Features(), Policy{Elicit: pol}.Ask)
	c := p.ask(t, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{`+
		`"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"score":{"type":"number","default":95.5},`+
		`"status":{"type":"string","enum":["active","inactive"],"default":"active"},"verified":{"type":"boolean","default":true},"none":{"type":"string"}}}}`)
	res, err := result(t, c)
	want := `{"action":"accept","content":{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}}`
	if err != nil || string(res) != want {
		t.Fatalf("got %s %v\nwant %s", res, err, want)
	}
	c = p.ask(t, "elicitation/create", `{"mode":"url","message":"m","url":"https://x.example/a","elicitationId":"e1"}`)
	if res, err := result(t, c); err != nil || string(res) != `{"action":"accept"}` {
		t.Fatalf("url accept: %s %v", res, err)
	}
}

func TestPolicyParsing(t *testing.T) {
	for _, bad := range []string{"yes", "accept", "accept:[1]", "accept:{", "accept:null"} {
		if _, err := ParseElicitPolicy(bad); err == nil {
			t.Errorf("--elicit %s accepted", bad)
		}
	}
	if p, err := ParseElicitPolicy(`accept: {"a": 1}`); err != nil || string(p.Content) != `{"a":1}` {
		t.Errorf("accept:JSON: %+v %v", p, err)
	}
	if _, err := ParseSamplePolicy("accept"); err == nil {
		t.Error("--sample accept accepted")
	}
	if p, _ := ParseSamplePolicy("text:a:b"); p.Text != "a:b" {
		t.Errorf("text: %q", p.Text)
	}
	if f := (Policy{}).Features(); f != (ClientFeatures{}) {
		t.Errorf("no policy declares %+v", f)
	}
}

// The server cancels its request: the question is withdrawn with the
// server's reason, and an answer after that is refused and never sent.
func TestServerCancelWithdrawsTheQuestion(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Sampling: true}, nil)
	events := p.client.Subscribe()
	defer events.Close()
	c := p.ask(t, "sampling/createMessage", `{"messages":[]}`)
	q := p.question(t)
	if err := p.server.Request(c.Ref()).Cancel("the user went away"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-q.Withdrawn():
	case <-time.After(5 * time.Second):
		t.Fatal("the question stands after the server's cancel")
	}
	if q.Why() != "cancelled by the server: the user went away" {
		t.Errorf("why: %q", q.Why())
	}
	var tooLate *TooLateError
	if err := q.Answer(SamplingText("late", SamplingModel), nil); !errors.As(err, &tooLate) || !strings.Contains(err.Error(), "the user went away") {
		t.Fatalf("answer after the cancel: %v", err)
	}
	// The client sends nothing more: the server's next request is the
	// first thing it answers.
	if _, err := result(t, p.ask(t, "ping", `{}`)); err != nil {
		t.Fatal(err)
	}
	info, _ := p.server.Request(c.Ref()).Info()
	if info.LateCount != 0 {
		t.Fatalf("the client answered after the cancel: %+v", info.Late)
	}
}

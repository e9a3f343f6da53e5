package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// startAsked connects a client that declares f to a demo server; the
// client's questions arrive on the channel. extra handlers replace the
// client side's (a misbehaving client).
func startAsked(t *testing.T, f mcp.ClientFeatures, roots *mcp.RootList, extra map[string]session.Handler) (*session.Session, <-chan *mcp.Question) {
	t.Helper()
	asked := make(chan *mcp.Question, 4)
	cs := mcp.NewClientSide(mcp.ClientSideOptions{Features: f, Roots: roots, Ask: func(q *mcp.Question) { asked <- q }})
	cfg := session.Config{SettleWindow: -1}
	cs.Install(&cfg)
	for m, h := range extra {
		cfg.Handlers[m] = h
	}
	a, b := transporttest.Pipe()
	srv := newServer(nil).serve(b)
	cli := session.New(a, cfg)
	t.Cleanup(func() {
		cli.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if _, err := cli.Initialize(ctx, session.InitializeOptions{Capabilities: cs.Capabilities("")}); err != nil {
		t.Fatal(err)
	}
	return cli, asked
}

// callAsync starts a tools/call and returns its outcome on a channel.
func callAsync(t *testing.T, cli *session.Session, name, args string) <-chan result {
	t.Helper()
	out := make(chan result, 1)
	go func() {
		r, err := do(t, cli, name, args)
		if err != nil {
			r.Content = append(r.Content, struct{ Type, Text string }{"error", err.Error()})
		}
		out <- r
	}()
	return out
}

func question(t *testing.T, asked <-chan *mcp.Question) *mcp.Question {
	t.Helper()
	select {
	case q := <-asked:
		return q
	case <-time.After(hangGuard):
		t.Fatal("the demo asked nothing")
	}
	return nil
}

func text(t *testing.T, out <-chan result) string {
	t.Helper()
	select {
	case r := <-out:
		return r.Content[0].Text
	case <-time.After(hangGuard):
		t.Fatal("no result")
	}
	return ""
}

func TestAskSamplingAndElicitation(t *testing.T) {
	cli, asked := startAsked(t, mcp.ClientFeatures{Sampling: true, ElicitForm: true, ElicitURL: true}, nil, nil)
	out := callAsync(t, cli, "ask", `{"kind":"sampling","message":"why?"}`)
	q := question(t, asked)
	if q.Sampling == nil || q.Sampling.Messages[0].Content[0].Text != "why?" || q.Sampling.MaxTokens == 0 || q.Sampling.SystemPrompt == "" {
		t.Fatalf("sampling question %+v", q.Sampling)
	}
	_ = q.Answer(mcp.SamplingText("because", mcp.SamplingModel), nil)
	if got := text(t, out); !strings.Contains(got, `"text":"because"`) {
		t.Fatalf("result %s", got)
	}
	out = callAsync(t, cli, "ask", `{}`)
	q = question(t, asked)
	if q.Elicit == nil || q.Elicit.Mode != "form" || string(q.Elicit.Defaults()) != `{"name":"Ada","colour":"green","subscribe":false}` {
		t.Fatalf("elicitation question %+v", q.Elicit)
	}
	_ = q.Answer(mcp.ElicitResult(mcp.ElicitDecline, nil), nil)
	if got := text(t, out); !strings.Contains(got, `{"action":"decline"}`) {
		t.Fatalf("result %s", got)
	}
	out = callAsync(t, cli, "ask", `{"kind":"url"}`)
	q = question(t, asked)
	if q.Elicit.Mode != "url" || !strings.HasPrefix(q.Elicit.URL, "https://example.com/") || q.Elicit.ElicitationID == "" {
		t.Fatalf("url question %+v", q.Elicit)
	}
	_ = q.Answer(mcp.ElicitResult(mcp.ElicitAccept, nil), nil)
	if got := text(t, out); !strings.Contains(got, `accept`) {
		t.Fatalf("result %s", got)
	}
}

// The demo asks only for what the client declared.
func TestAskNeedsTheCapability(t *testing.T) {
	cli, _ := startAsked(t, mcp.ClientFeatures{}, nil, nil)
	for _, kind := range []string{"sampling", "elicitation", "url"} {
		r, err := do(t, cli, "ask", `{"kind":"`+kind+`"}`)
		if err != nil || !r.IsError || !strings.Contains(r.Content[0].Text, "did not declare") {
			t.Errorf("%s: %+v %v", kind, r, err)
		}
	}
	r, err := do(t, cli, "roots", `{}`)
	if err != nil || !r.IsError {
		t.Errorf("roots: %+v %v", r, err)
	}
}

// cancel_after: the demo cancels its own request; the client's question
// is withdrawn and it sends nothing, which the result confirms.
func TestAskCancelAfterWithdrawsTheQuestion(t *testing.T) {
	cli, asked := startAsked(t, mcp.ClientFeatures{ElicitForm: true}, nil, nil)
	out := callAsync(t, cli, "ask", `{"cancel_after":0.05}`)
	q := question(t, asked)
	select {
	case <-q.Withdrawn():
	case <-time.After(hangGuard):
		t.Fatal("the question stands")
	}
	if !strings.Contains(q.Why(), "cancelled by the server: the demo server gave up after 50ms (cancel_after)") {
		t.Errorf("why %q", q.Why())
	}
	if err := q.Answer(mcp.ElicitResult(mcp.ElicitAccept, json.RawMessage(`{}`)), nil); err == nil {
		t.Error("an answer after the cancel was taken")
	}
	if got := text(t, out); !strings.Contains(got, "The client sent no answer after it") {
		t.Fatalf("result %s", got)
	}
}

// A client that answers after the cancel is caught.
func TestAskCatchesALateAnswer(t *testing.T) {
	late := func(ctx context.Context, in *session.Incoming) (any, error) {
		in.IgnoreCancellation()
		<-time.After(200 * time.Millisecond)
		return mcp.ElicitResult(mcp.ElicitAccept, json.RawMessage(`{"name":"late"}`)), nil
	}
	cli, _ := startAsked(t, mcp.ClientFeatures{ElicitForm: true}, nil, map[string]session.Handler{"elicitation/create": late})
	if got := text(t, callAsync(t, cli, "ask", `{"cancel_after":0.05}`)); !strings.Contains(got, "The client answered anyway") {
		t.Fatalf("result %s", got)
	}
}

func TestRootsTool(t *testing.T) {
	roots := mcp.NewRootList(mcp.Root{URI: "file:///srv/a", Name: "a"})
	cli, _ := startAsked(t, mcp.ClientFeatures{Roots: true}, roots, nil)
	r, err := do(t, cli, "roots", `{}`)
	if err != nil || r.Content[0].Text != "the client offers 1 root:\n  file:///srv/a (a)" {
		t.Fatalf("%+v %v", r, err)
	}
}

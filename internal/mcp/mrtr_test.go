package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// mrtrServer is a server session whose tools/call answers by rounds: ask
// returns the result for the n-th call (from 1) given its params.
type mrtrServer struct {
	mu    sync.Mutex
	calls []json.RawMessage
}

func (m *mrtrServer) seen() []json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]json.RawMessage(nil), m.calls...)
}

// newMRTRPair connects a ClientSide declaring f to a server whose
// tools/call answers with answer(n, params); questions go to ask.
func newMRTRPair(t *testing.T, f ClientFeatures, ask Asker, answer func(n int, params json.RawMessage) json.RawMessage) (*ClientSide, *session.Session, *mrtrServer) {
	t.Helper()
	srv := &mrtrServer{}
	cs := NewClientSide(ClientSideOptions{Features: f, Ask: ask, Roots: NewRootList(Root{URI: "file:///tmp/r", Name: "r"})})
	a, b := transporttest.Pipe()
	cfg := session.Config{}
	cs.Install(&cfg)
	client := session.New(a, cfg)
	client.UseEra2026(session.Era2026Options{}) // multi round-trip requests are 2026-07-28's
	server := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/call": func(_ context.Context, in *session.Incoming) (any, error) {
			srv.mu.Lock()
			srv.calls = append(srv.calls, append(json.RawMessage(nil), in.Params...))
			n := len(srv.calls)
			srv.mu.Unlock()
			return answer(n, in.Params), nil
		},
	}})
	t.Cleanup(func() { client.Close(); server.Close() })
	return cs, client, srv
}

// exactState is a requestState whose escapes must survive byte for byte.
const exactState = `"st\u00e9\/x+=="`

func TestRoundsRetryCarriesAnswersAndExactRequestState(t *testing.T) {
	f := ClientFeatures{Roots: true, Sampling: true, ElicitForm: true}
	ask := func(q *Question) {
		if q.Round != 1 || q.InputKey == "" {
			t.Errorf("question of round %d key %q, want round 1 and its key", q.Round, q.InputKey)
		}
		if q.Elicit != nil {
			_ = q.Answer(ElicitResult(ElicitAccept, json.RawMessage(`{"name":"Ada"}`)), nil)
			return
		}
		_ = q.Answer(SamplingText("Paris", "test"), nil)
	}
	cs, client, srv := newMRTRPair(t, f, ask, func(n int, _ json.RawMessage) json.RawMessage {
		if n == 1 {
			return json.RawMessage(`{"resultType":"input_required","requestState":` + exactState + `,"inputRequests":{
				"e":{"method":"elicitation/create","params":{"mode":"form","message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}},
				"r":{"method":"roots/list"},
				"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"capital?"}}],"maxTokens":10}}}}`)
		}
		return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"done"}]}`)
	})
	first, err := client.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"t","arguments":{"a":1}}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := cs.FollowRounds(context.Background(), client, first, session.CallOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 || rounds[0].Input == nil || rounds[1].Input != nil {
		t.Fatalf("rounds = %+v, want input_required then complete", rounds)
	}
	last := rounds[1].Call
	if last.ID().String() == first.ID().String() {
		t.Errorf("the retry reused id %s", first.ID())
	}
	info, _ := client.Request(last.Ref()).Info()
	if info.Round.N != 2 || info.Round.First != first.Ref() {
		t.Errorf("retry's Round = %+v, want 2 of %v", info.Round, first.Ref())
	}
	seen := srv.seen()
	if len(seen) != 2 {
		t.Fatalf("server saw %d calls, want 2", len(seen))
	}
	if !bytes.Contains(seen[1], []byte(`"requestState":`+exactState)) {
		t.Errorf("retry params %s do not carry requestState %s byte for byte", seen[1], exactState)
	}
	var p struct {
		Name           string                     `json:"name"`
		Arguments      json.RawMessage            `json:"arguments"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		Meta           map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(seen[1], &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "t" || string(p.Arguments) != `{"a":1}` {
		t.Errorf("retry lost the original params: %s", seen[1])
	}
	if string(p.Meta["progressToken"]) != last.ID().String() {
		t.Errorf("retry's progressToken = %s, want its own id %s", p.Meta["progressToken"], last.ID())
	}
	want := map[string]string{
		"e": `{"action":"accept","content":{"name":"Ada"}}`,
		"r": `{"roots":[{"uri":"file:///tmp/r","name":"r"}]}`,
	}
	for k, v := range want {
		if got := compact(t, p.InputResponses[k]); got != v {
			t.Errorf("inputResponses[%s] = %s, want %s", k, got, v)
		}
	}
	if !bytes.Contains(p.InputResponses["s"], []byte("Paris")) {
		t.Errorf("inputResponses[s] = %s, want the sampling answer", p.InputResponses["s"])
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func TestRoundsAbandonedBetweenRoundsSendNothing(t *testing.T) {
	asked := make(chan *Question, 1)
	cs, client, srv := newMRTRPair(t, ClientFeatures{ElicitForm: true}, func(q *Question) { asked <- q },
		func(int, json.RawMessage) json.RawMessage {
			return json.RawMessage(`{"resultType":"input_required","requestState":"s","inputRequests":{"e":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}}}`)
		})
	first, err := client.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"t"}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var rounds []Round
	go func() {
		var err error
		rounds, err = cs.FollowRounds(ctx, client, first, session.CallOptions{}, nil)
		done <- err
	}()
	q := recvWithin(t, asked, "the round's question")
	cancel()
	if err := recvWithin(t, done, "FollowRounds to return after its context ended"); !errors.Is(err, ErrAbandoned) {
		t.Fatalf("FollowRounds = %v, want ErrAbandoned", err)
	}
	var tooLate *TooLateError
	if err := q.Answer(ElicitResult(ElicitAccept, json.RawMessage(`{}`)), nil); !errors.As(err, &tooLate) {
		t.Errorf("answer after abandoning = %v, want a TooLateError", err)
	}
	// A request after it: the server has read everything sent before.
	if _, err := client.Do(context.Background(), "tools/call", json.RawMessage(`{"name":"barrier"}`), session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.seen()); n != 2 {
		t.Errorf("server saw %d calls, want the first and the barrier: the abandoned request sent a retry", n)
	}
	if len(rounds) != 1 {
		t.Errorf("rounds = %d, want 1", len(rounds))
	}
}

func TestRoundsStopAfterMaxRounds(t *testing.T) {
	cs, client, srv := newMRTRPair(t, ClientFeatures{}, nil, func(int, json.RawMessage) json.RawMessage {
		return json.RawMessage(`{"resultType":"input_required","requestState":"again"}`)
	})
	first, err := client.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"t"}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := cs.FollowRounds(context.Background(), client, first, session.CallOptions{}, nil)
	if !errors.Is(err, ErrTooManyRounds) {
		t.Fatalf("FollowRounds = %v, want ErrTooManyRounds", err)
	}
	if len(rounds) != MaxRounds || len(srv.seen()) != MaxRounds {
		t.Errorf("%d rounds, server saw %d calls; want %d of each", len(rounds), len(srv.seen()), MaxRounds)
	}
	// No inputRequests: the retry carries no inputResponses.
	if bytes.Contains(srv.seen()[1], []byte("inputResponses")) {
		t.Errorf("retry %s carries inputResponses for no inputRequests", srv.seen()[1])
	}
}

func TestRoundsRetryWithoutRequestStateSendsNone(t *testing.T) {
	cs, client, srv := newMRTRPair(t, ClientFeatures{Roots: true}, nil, func(n int, _ json.RawMessage) json.RawMessage {
		if n == 1 {
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"},"x":{"method":"sampling/createMessage","params":{}}}}`)
		}
		return json.RawMessage(`{"content":[]}`)
	})
	first, err := client.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"t","requestState":"stale"}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := cs.FollowRounds(context.Background(), client, first, session.CallOptions{}, nil)
	if err != nil || len(rounds) != 2 {
		t.Fatalf("FollowRounds = %d rounds, %v", len(rounds), err)
	}
	retry := srv.seen()[1]
	if bytes.Contains(retry, []byte("requestState")) {
		t.Errorf("retry %s carries a requestState the server did not give", retry)
	}
	// Sampling was not declared: not answered, and said why.
	a := rounds[0].Answers
	if len(a) != 2 || a[1].Key != "x" || a[1].Result != nil || a[1].Refused == "" {
		t.Errorf("answers = %+v, want x refused for sampling not declared", a)
	}
	if bytes.Contains(retry, []byte(`"x"`)) {
		t.Errorf("retry %s answers a request of a feature not declared", retry)
	}
}

func TestReadInputRequired(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		ok, bad bool
	}{
		{`{"content":[]}`, false, false},
		{`{"resultType":"complete"}`, false, false},
		{`{"resultType":"input_required","requestState":"x"}`, true, false},
		{`{"resultType":"input_required"}`, true, true},
		{`{"resultType":"input_required","requestState":7}`, true, true},
		{`{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{}}}}`, true, false},
		{`{"resultType":"input_required","inputRequests":{"q":{"params":{}}}}`, true, false}, // no method: refused as no request a server may make when answered
		{`{"resultType":"input_required","inputRequests":{"q":{"method":7}}}`, true, true},
	} {
		_, ok, err := ReadInputRequired(json.RawMessage(tc.raw))
		if ok != tc.ok || (err != nil) != tc.bad {
			t.Errorf("%s: ok %v err %v", tc.raw, ok, err)
		}
	}
}

// Only tools/call, prompts/get and resources/read may need input: any
// other request answered input_required is not retried.
func TestInputRequiredOnlyWhereAllowed(t *testing.T) {
	a, b := transporttest.Pipe()
	client := session.New(a, session.Config{})
	client.UseEra2026(session.Era2026Options{})
	server := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/list": func(context.Context, *session.Incoming) (any, error) {
			return json.RawMessage(`{"resultType":"input_required","requestState":"x"}`), nil
		},
	}})
	t.Cleanup(func() { client.Close(); server.Close() })
	cs := NewClientSide(ClientSideOptions{})
	first, err := client.Call(context.Background(), "tools/list", nil, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := cs.FollowRounds(context.Background(), client, first, session.CallOptions{}, nil)
	if !errors.Is(err, ErrInputRequiredNotAllowed) || len(rounds) != 1 {
		t.Fatalf("FollowRounds = %d rounds, %v; want ErrInputRequiredNotAllowed and no retry", len(rounds), err)
	}
}

// RetryParams drops the progress token from _meta and keeps the rest of
// it (no _meta left when the token was all), and retries a request sent
// without params with the answers and state alone.
func TestRetryParamsMetaAndNoParams(t *testing.T) {
	answers := map[string]json.RawMessage{"q": json.RawMessage(`{"action":"accept"}`)}
	for _, tc := range []struct{ sent, want string }{
		{`{"name":"t","_meta":{"progressToken":1,"trace":"x"}}`, `{"_meta":{"trace":"x"},"inputResponses":{"q":{"action":"accept"}},"name":"t","requestState":"s"}`},
		{`{"name":"t","_meta":{"progressToken":1}}`, `{"inputResponses":{"q":{"action":"accept"}},"name":"t","requestState":"s"}`},
		{``, `{"inputResponses":{"q":{"action":"accept"}},"requestState":"s"}`},
	} {
		got, err := RetryParams(json.RawMessage(tc.sent), answers, json.RawMessage(`"s"`))
		if err != nil || string(got) != tc.want {
			t.Errorf("RetryParams(%s) = %s, %v; want %s", tc.sent, got, err, tc.want)
		}
	}
	if got, err := RetryParams(nil, nil, json.RawMessage(`"s"`)); err != nil || string(got) != `{"requestState":"s"}` {
		t.Errorf("RetryParams of no params and no answers = %s, %v; want the state alone", got, err)
	}
}

package demo

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hangGuard bounds waits that only a bug makes long; CI runs -race on a
// loaded machine, so it is generous.
const hangGuard = 10 * time.Second

// start connects a client session to a demo server over an in-memory pipe.
func start(t *testing.T) (*session.Session, *buffertest.Buffer) {
	t.Helper()
	return startServer(t, nil)
}

// startServer is start with the server's hooks set by setup.
func startServer(t *testing.T, setup func(*server)) (*session.Session, *buffertest.Buffer) {
	t.Helper()
	a, b := transporttest.Pipe()
	log := &buffertest.Buffer{}
	s := newServer(log)
	if setup != nil {
		setup(s)
	}
	srv := s.serve(b)
	cli := session.New(a, session.Config{SettleWindow: -1})
	t.Cleanup(func() {
		cli.Close()
		srv.Close()
	})
	return cli, log
}

func callParams(name, args string) json.RawMessage {
	return json.RawMessage(`{"name":"` + name + `","arguments":` + args + `}`)
}

type result struct {
	Content []struct {
		Type, Text string
	}
	IsError bool
}

func do(t *testing.T, cli *session.Session, name, args string) (result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := cli.Do(ctx, "tools/call", callParams(name, args), session.CallOptions{})
	var r result
	if err == nil {
		if jerr := json.Unmarshal(raw, &r); jerr != nil {
			t.Fatalf("result %s: %v", raw, jerr)
		}
	}
	return r, err
}

func TestInitializeNegotiatesVersion(t *testing.T) {
	for _, tc := range []struct{ offer, want string }{
		{"2025-06-18", "2025-06-18"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", session.LatestVersion},
	} {
		cli, _ := start(t)
		peer, err := cli.Initialize(context.Background(), session.InitializeOptions{ProtocolVersion: tc.offer,
			ClientInfo: session.Implementation{Name: "test", Version: "0"}})
		if err != nil {
			t.Fatalf("offer %s: %v", tc.offer, err)
		}
		if peer.ProtocolVersion != tc.want || peer.ServerInfo.Name != ServerName || peer.Instructions == "" {
			t.Errorf("offer %s: got %+v", tc.offer, peer)
		}
		if strings.Contains(peer.Instructions, "\n") {
			t.Errorf("instructions are more than one line: %q", peer.Instructions)
		}
		want := `{"completions":{},"logging":{},"prompts":{},"resources":{"subscribe":true},"tools":{}}`
		if tc.want >= "2025-11-25" {
			want = `{"completions":{},"logging":{},"prompts":{},"resources":{"subscribe":true},"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}},"tools":{}}`
		}
		if string(peer.Capabilities) != want {
			t.Errorf("offer %s: capabilities %s, want %s", tc.offer, peer.Capabilities, want)
		}
	}
}

func TestListToolsHasSchemasWithDescriptionsAndDefaults(t *testing.T) {
	cli, _ := start(t)
	raw, err := cli.Do(context.Background(), "tools/list", nil, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name, Description string
			InputSchema       struct {
				Type       string
				Properties map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	// The defaults the tools apply when an argument is left out.
	wantDefaults := map[string]map[string]any{
		"sleep":    {"seconds": 10.0, "steps": 10.0},
		"stubborn": {"seconds": 5.0},
		"flood":    {"count": 10000.0, "interval_ms": 0.0},
		"echo":     {},
		"fail":     {"mode": "tool-error"},
		"research": {"seconds": 5.0},
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema.Type != "object" {
			t.Errorf("%s: description %q, schema type %q", tool.Name, tool.Description, tool.InputSchema.Type)
		}
		for prop, schema := range tool.InputSchema.Properties {
			if schema["description"] == nil {
				t.Errorf("%s.%s has no description", tool.Name, prop)
			}
			if want, ok := wantDefaults[tool.Name][prop]; ok && schema["default"] != want {
				t.Errorf("%s.%s default %v, want %v", tool.Name, prop, schema["default"], want)
			}
		}
	}
	if got := strings.Join(names, ","); got != "sleep,stubborn,flood,echo,fail,ask,roots,research,spin" {
		t.Errorf("tools %s", got)
	}
}

func TestEcho(t *testing.T) {
	cli, _ := start(t)
	r, err := do(t, cli, "echo", `{"text":"hi there"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != "hi there" || r.IsError {
		t.Fatalf("got %+v", r)
	}
}

func TestFailModes(t *testing.T) {
	cli, _ := start(t)
	r, err := do(t, cli, "fail", `{"mode":"tool-error"}`)
	if err != nil || !r.IsError {
		t.Fatalf("tool-error: %+v %v", r, err)
	}
	r, err = do(t, cli, "fail", `{}`)
	if err != nil || !r.IsError {
		t.Fatalf("default mode: %+v %v", r, err)
	}
	_, err = do(t, cli, "fail", `{"mode":"rpc-error"}`)
	var rpcErr *session.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != failCode {
		t.Fatalf("rpc-error: %v", err)
	}
}

func TestBadCallsAreInvalidParams(t *testing.T) {
	cli, _ := start(t)
	for _, tc := range []struct{ name, args, want string }{
		{"nope", `{}`, `unknown tool "nope"; this server has: sleep, stubborn, flood, echo, fail, ask, roots, research, spin`},
		{"sleep", `{"seconds":"ten"}`, `invalid arguments for sleep: argument "seconds"`},
		{"sleep", `{"secs":1}`, `additional properties 'secs' not allowed`},
		{"echo", `{}`, `missing property 'text'`},
		{"fail", `{"mode":"boom"}`, `argument "mode"`},
	} {
		_, err := do(t, cli, tc.name, tc.args)
		var rpcErr *session.RPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != session.CodeInvalidParams || !strings.Contains(rpcErr.Message, tc.want) {
			t.Errorf("%s %s: got %v, want -32602 containing %q", tc.name, tc.args, err, tc.want)
		}
	}
}

// collect returns every event of sub until the request seq is final.
func collect(t *testing.T, sub *session.Subscription, seq uint64) []session.Event {
	t.Helper()
	var evs []session.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				t.Fatal("session ended")
			}
			evs = append(evs, e)
			if sc, ok := e.(session.StateChanged); ok && sc.Ref.Seq == seq && sc.To.Final() {
				return evs
			}
		case <-timeout:
			t.Fatal("request did not end")
		}
	}
}

func progressOf(evs []session.Event, seq uint64) []session.Progress {
	var out []session.Progress
	for _, e := range evs {
		if p, ok := e.(session.ProgressUpdated); ok && p.Ref.Seq == seq {
			out = append(out, p.Progress)
		}
	}
	return out
}

func TestSleepReportsEveryStep(t *testing.T) {
	cli, _ := start(t)
	sub := cli.Subscribe()
	defer sub.Close()
	c, err := cli.Call(context.Background(), "tools/call", callParams("sleep", `{"seconds":0.2,"steps":4}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, sub, c.Seq())
	if _, st, err := c.Result(); st != session.Completed || err != nil {
		t.Fatalf("state %v err %v", st, err)
	}
	prog := progressOf(evs, c.Seq())
	if len(prog) != 4 {
		t.Fatalf("%d progress notifications, want 4", len(prog))
	}
	last := prog[3]
	if last.Progress != 4 || last.Total == nil || *last.Total != 4 || last.Message != "step 4 of 4" {
		t.Errorf("last progress %+v", last)
	}
}

func TestSleepStopsWhenCancelledAndLogsIt(t *testing.T) {
	cli, log := start(t)
	sub := cli.Subscribe()
	defer sub.Close()
	c, err := cli.Call(context.Background(), "tools/call", callParams("sleep", `{"seconds":5,"steps":50}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, func(e session.Event) bool { _, ok := e.(session.ProgressUpdated); return ok })
	if err := cli.Request(c.Ref()).Cancel("enough sleeping"); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := c.Result(); st != session.Cancelled {
		t.Fatalf("state %v", st)
	}
	// The log line appears once the server handled the cancel.
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(log.String(), "sleep stopped") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := log.String()
	for _, want := range []string{`msg="cancel received"`, "id=" + c.ID().String(), "tool=sleep", `reason="enough sleeping"`, "ran=", "sleep stopped"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	// No response follows: the server suppressed it. A ping round trip
	// proves the server has moved on.
	if _, err := cli.Do(context.Background(), "ping", nil, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	info, _ := cli.Request(c.Ref()).Info()
	if info.LateCount != 0 {
		t.Errorf("late traffic after the cancel: %+v", info.Late)
	}
}

func TestStubbornAnswersLate(t *testing.T) {
	// stubborn waits in the hook until the test has cancelled and the
	// server has handled the cancel: the order is fixed, not left to a
	// sleep, and its work starts only after the cancel.
	const work = 100 * time.Millisecond // stubborn's seconds below
	ignoring := make(chan session.ID, 1)
	release := make(chan struct{})
	cli, log := startServer(t, func(s *server) {
		s.ignoring = func(id session.ID) {
			ignoring <- id
			<-release
		}
	})
	var releaseOnce sync.Once
	releaseWork := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(releaseWork) // before the sessions close: they wait for handlers
	sub := cli.Subscribe()
	defer sub.Close()
	c, err := cli.Call(context.Background(), "tools/call", callParams("stubborn", `{"seconds":0.1}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-ignoring:
		if id != c.ID() {
			t.Fatalf("stubborn ran for request %v, want %v", id, c.ID())
		}
	case <-time.After(hangGuard):
		t.Fatal("stubborn never started (hang guard)")
	}
	if err := cli.Request(c.Ref()).Cancel("stop it"); err != nil {
		t.Fatal(err)
	}
	// A ping is answered only after the cancel before it was handled.
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if _, err := cli.Do(ctx, "ping", nil, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	releaseWork()
	if !strings.Contains(log.String(), "ignores cancellation") {
		t.Errorf("log does not show the ignored cancel:\n%s", log.String())
	}
	e := waitFor(t, sub, func(e session.Event) bool { _, ok := e.(session.LateArrived); return ok })
	late := e.(session.LateArrived).Late
	// The work started after the cancel, so its answer is at least that
	// long after it.
	if late.Kind != session.LateResponse || late.AfterCancel < work {
		t.Errorf("late %v after %v, want a response at least %v after the cancel", late.Kind, late.AfterCancel, work)
	}
}

func TestFloodLosesNothing(t *testing.T) {
	cli, _ := start(t)
	sub := cli.Subscribe()
	defer sub.Close()
	c, err := cli.Call(context.Background(), "tools/call", callParams("flood", `{}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, sub, c.Seq())
	prog := progressOf(evs, c.Seq())
	if len(prog) != 10000 {
		t.Fatalf("%d progress notifications, want 10000", len(prog))
	}
	for i, p := range prog {
		if p.Progress != float64(i+1) {
			t.Fatalf("progress #%d is %v", i, p.Progress)
		}
	}
	if _, st, _ := c.Result(); st != session.Completed {
		t.Fatalf("state %v", st)
	}
}

func TestFloodWithInterval(t *testing.T) {
	cli, _ := start(t)
	start := time.Now()
	r, err := do(t, cli, "flood", `{"count":3,"interval_ms":20}`)
	if err != nil || r.Content[0].Text != "sent 3 progress notifications" {
		t.Fatalf("%+v %v", r, err)
	}
	if el := time.Since(start); el < 40*time.Millisecond {
		t.Errorf("took %v, want at least 2 intervals", el)
	}
}

func waitFor(t *testing.T, sub *session.Subscription, match func(session.Event) bool) session.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				t.Fatal("session ended")
			}
			if match(e) {
				return e
			}
		case <-timeout:
			t.Fatal("event did not come")
		}
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// extServer is a scripted server of the tasks extension (2026-07-28):
// every tools/call becomes task "x1" (unsolicited, resultType "task");
// tasks/get answers the next of answers (the last again once they run
// out); tasks/update and tasks/cancel are recorded and acknowledged.
type extServer struct {
	mu      sync.Mutex
	answers []string
	gets    int
	methods []string
	updates []json.RawMessage
}

func (x *extServer) seen() ([]string, []json.RawMessage) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.methods...), append([]json.RawMessage(nil), x.updates...)
}

func startExtServer(t *testing.T, answers ...string) (*session.Session, *clocktest.Clock, *extServer) {
	t.Helper()
	x := &extServer{answers: answers}
	note := func(m string, p json.RawMessage) {
		x.mu.Lock()
		defer x.mu.Unlock()
		x.methods = append(x.methods, m)
		if m == "tasks/update" {
			x.updates = append(x.updates, append(json.RawMessage(nil), p...))
		}
	}
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/call": func(_ context.Context, in *session.Incoming) (any, error) {
			note("tools/call", in.Params)
			return json.RawMessage(`{"resultType":"task","taskId":"x1","status":"working","ttlMs":60000,"pollIntervalMs":200}`), nil
		},
		"tasks/get": func(_ context.Context, in *session.Incoming) (any, error) {
			note("tasks/get", in.Params)
			x.mu.Lock()
			defer x.mu.Unlock()
			a := x.answers[min(x.gets, len(x.answers)-1)]
			x.gets++
			return json.RawMessage(a), nil
		},
		"tasks/update": func(_ context.Context, in *session.Incoming) (any, error) {
			note("tasks/update", in.Params)
			return json.RawMessage(`{"resultType":"complete"}`), nil
		},
		"tasks/cancel": func(_ context.Context, in *session.Incoming) (any, error) {
			note("tasks/cancel", in.Params)
			return json.RawMessage(`{"resultType":"complete"}`), nil
		},
	}})
	clk := clocktest.New()
	cli := session.New(a, session.Config{Clock: clk})
	cli.UseEra2026(session.Era2026Options{Capabilities: ClientFeatures{FollowTasks: true, ElicitForm: true}.Capabilities(session.Era2026Version)})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	return cli, clk, x
}

// startExtTask calls a tool plainly; the server makes a task of it.
func startExtTask(t *testing.T, cli *session.Session) session.Ref {
	t.Helper()
	c, err := cli.Call(testContext(t), "tools/call", json.RawMessage(`{"name":"x","arguments":{}}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(testContext(t)); err != nil {
		t.Fatal(err)
	}
	info, _ := cli.Request(c.Ref()).Info()
	if info.TaskRow().Seq == 0 {
		t.Fatalf("no task row for %s", info.Result)
	}
	return info.TaskRow()
}

// followExt is follow with a ClientSide answering the task's questions.
func followExt(t *testing.T, cli *session.Session, clk *clocktest.Clock, ref session.Ref, cs *ClientSide) session.RequestInfo {
	t.Helper()
	type res struct {
		info session.RequestInfo
		err  error
	}
	done := make(chan res, 1)
	go func() {
		info, err := FollowTask(testContext(t), cli, ref, FollowOptions{Side: cs})
		done <- res{info, err}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatal(r.err)
			}
			return r.info
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("FollowTask did not return")
		}
		clk.Advance(200 * time.Millisecond)
		time.Sleep(time.Millisecond)
	}
}

// The declaration: a modern session that follows tasks declares the
// extension, and nothing of 2025's tasks capability; a legacy one the
// reverse.
func TestExtensionDeclaredOnlyInModernSessions(t *testing.T) {
	f := ClientFeatures{Sampling: true, Tasks: true, FollowTasks: true}
	modern := string(f.Capabilities(session.Era2026Version))
	if modern != `{"extensions":{"io.modelcontextprotocol/tasks":{}},"sampling":{}}` {
		t.Errorf("modern capabilities %s", modern)
	}
	if legacy := string(f.Capabilities("2025-11-25")); strings.Contains(legacy, "extensions") || !strings.Contains(legacy, `"tasks"`) {
		t.Errorf("legacy capabilities %s", legacy)
	}
	f.FollowTasks = false
	if caps := string(f.Capabilities(session.Era2026Version)); strings.Contains(caps, "extensions") {
		t.Errorf("declared without following tasks: %s", caps)
	}
	if !ParseClientCapabilities(json.RawMessage(modern)).FollowTasks {
		t.Error("the declaration is not read back")
	}
}

// An extension task is followed with tasks/get alone; its result comes
// with the completed status (no tasks/result).
func TestFollowExtensionTaskPollsToTheResult(t *testing.T) {
	cli, clk, x := startExtServer(t,
		`{"resultType":"complete","taskId":"x1","status":"working","pollIntervalMs":200}`,
		`{"resultType":"complete","taskId":"x1","status":"completed","result":{"content":[{"type":"text","text":"the answer"}]}}`)
	ref := startExtTask(t, cli)
	info := followExt(t, cli, clk, ref, nil)
	if info.State != session.Completed || !strings.Contains(string(info.Result), "the answer") {
		t.Fatalf("state %v result %s", info.State, info.Result)
	}
	methods, _ := x.seen()
	if strings.Contains(strings.Join(methods, " "), "tasks/result") {
		t.Errorf("methods %v: tasks/result is not part of the extension", methods)
	}
}

// input_required: the inputRequests are asked with the ClientSide (the
// same screens and policies), each key once however often polls repeat
// it, and the answers go with tasks/update; then polling goes on.
func TestFollowExtensionTaskAnswersInputWithTasksUpdate(t *testing.T) {
	ask := `{"resultType":"complete","taskId":"x1","status":"input_required","inputRequests":{"who":{"method":"elicitation/create",` +
		`"params":{"mode":"form","message":"Who is there?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`
	cli, clk, x := startExtServer(t, ask, ask, ask,
		`{"resultType":"complete","taskId":"x1","status":"completed","result":{"content":[{"type":"text","text":"hello, Ada"}]}}`)
	var asked []*Question
	var mu sync.Mutex
	cs := NewClientSide(ClientSideOptions{Features: ClientFeatures{ElicitForm: true, FollowTasks: true}, Ask: func(q *Question) {
		mu.Lock()
		asked = append(asked, q)
		mu.Unlock()
		_ = q.Answer(ElicitResult(ElicitAccept, json.RawMessage(`{"name":"Ada"}`)), nil)
	}})
	ref := startExtTask(t, cli)
	info := followExt(t, cli, clk, ref, cs)
	if info.State != session.Completed || !strings.Contains(string(info.Result), "hello, Ada") {
		t.Fatalf("state %v result %s", info.State, info.Result)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].Ref != ref || asked[0].InputKey != "who" {
		t.Fatalf("asked %d questions (%+v), want the one key once, for the task row", len(asked), asked)
	}
	_, updates := x.seen()
	if len(updates) != 1 {
		t.Fatalf("%d tasks/update, want 1", len(updates))
	}
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	_ = json.Unmarshal(updates[0], &p)
	if p.TaskID != "x1" || compact(t, p.InputResponses["who"]) != `{"action":"accept","content":{"name":"Ada"}}` {
		t.Errorf("tasks/update params %s", updates[0])
	}
}

// c on an extension task: tasks/cancel is acknowledged, polling goes on,
// and a task that ignores the cancel ends completed, the row saying so.
func TestFollowExtensionTaskThatIgnoresTheCancel(t *testing.T) {
	cli, clk, x := startExtServer(t,
		`{"resultType":"complete","taskId":"x1","status":"working","pollIntervalMs":200}`,
		`{"resultType":"complete","taskId":"x1","status":"working","pollIntervalMs":200}`,
		`{"resultType":"complete","taskId":"x1","status":"completed","result":{"content":[]}}`)
	ref := startExtTask(t, cli)
	if err := cli.Request(ref).Cancel("enough"); err != nil {
		t.Fatal(err)
	}
	info := followExt(t, cli, clk, ref, nil)
	if info.State != session.Completed || info.Task.Cancel == nil || !info.Task.Cancel.Acknowledged {
		t.Fatalf("state %v cancel %+v", info.State, info.Task.Cancel)
	}
	if !strings.HasPrefix(info.Task.Outcome, "cancel acknowledged; the task ended completed") {
		t.Errorf("outcome %q", info.Task.Outcome)
	}
	methods, _ := x.seen()
	if !strings.Contains(strings.Join(methods, " "), "tasks/cancel") {
		t.Errorf("methods %v", methods)
	}
}

// The era has no tasks/list: ListTasks says so and sends nothing.
func TestNoTaskListInTheExtension(t *testing.T) {
	cli, _, x := startExtServer(t, `{}`)
	if _, err := ListTasks(testContext(t), cli, ListOptions{Force: true}); !errors.Is(err, ErrNoTaskList) || namesAFlag(err) {
		t.Fatalf("err %v", err)
	}
	if methods, _ := x.seen(); len(methods) != 0 {
		t.Errorf("sent %v", methods)
	}
}

// A server of the extension decides: no tool is called "as a task", and
// --task is refused saying why; the editor's note says the server decides.
func TestDecideTaskWithTheExtension(t *testing.T) {
	ext := caps(t, `{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	tool := Tool{Name: "research", Execution: Execution{TaskSupport: TaskRequired}}
	if got, err := DecideTask(tool, ext, nil, false); got || err != nil {
		t.Errorf("no preference: %v %v, want a plain call", got, err)
	}
	yes := true
	if _, err := DecideTask(tool, ext, &yes, false); err == nil || !strings.Contains(err.Error(), "the server decides") || namesAFlag(err) {
		t.Errorf("--task: %v", err)
	}
	if c := TaskChoiceFor(tool, ext); c.AsTask || !strings.Contains(c.Note, "tasks extension") {
		t.Errorf("choice %+v", c)
	}
	if !ext.TasksExtension() || caps(t, `{"tools":{}}`).TasksExtension() {
		t.Error("TasksExtension misread")
	}
}

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

func caps(t *testing.T, raw string) ServerCapabilities {
	t.Helper()
	c, err := ParseServerCapabilities(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The tool-level negotiation of tasks.mdx: the server's capability first,
// then the tool's taskSupport; what the user asks only where it may.
func TestDecideTask(t *testing.T) {
	withTasks := `{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}`
	yes, no := true, false
	for _, c := range []struct {
		caps, support string
		asked         *bool
		force         bool
		want          bool
		refused       bool
	}{
		{withTasks, "required", nil, false, true, false},
		{withTasks, "optional", nil, false, false, false},
		{withTasks, "optional", &yes, false, true, false},
		{withTasks, "optional", &no, false, false, false},
		{withTasks, "", nil, false, false, false},
		{withTasks, "forbidden", &yes, false, false, true},
		{withTasks, "forbidden", &yes, true, true, false},
		{withTasks, "required", &no, false, false, true},
		{`{"tools":{}}`, "required", nil, false, false, false},
		{`{"tools":{}}`, "optional", &yes, false, false, true},
		{`{"tools":{},"tasks":{"list":{}}}`, "required", nil, false, false, false},
		{`{"tools":{}}`, "required", &yes, true, true, false},
	} {
		tool := Tool{Name: "t", Execution: Execution{TaskSupport: c.support}}
		got, err := DecideTask(tool, caps(t, c.caps), c.asked, c.force)
		if got != c.want || (err != nil) != c.refused || (err != nil && (!errors.Is(err, ErrTaskNotAllowed) || namesAFlag(err))) {
			t.Errorf("caps %s support %q asked %v force %v: got %v, %v; want %v refused %v",
				c.caps, c.support, c.asked, c.force, got, err, c.want, c.refused)
		}
	}
}

func TestTaskChoiceNotes(t *testing.T) {
	c := TaskChoiceFor(Tool{Execution: Execution{TaskSupport: "required"}}, caps(t, `{"tools":{}}`))
	if c.AsTask || !strings.Contains(c.Note, "tasks.requests.tools.call") {
		t.Errorf("required on a server without tasks: %+v", c)
	}
	c = TaskChoiceFor(Tool{Execution: Execution{TaskSupport: "optional"}}, caps(t, `{"tasks":{"requests":{"tools":{"call":{}}}}}`))
	if c.AsTask || !c.Choosable {
		t.Errorf("optional: %+v", c)
	}
}

func TestAsTaskParams(t *testing.T) {
	p, _ := CallToolParams("research", json.RawMessage(`{"seconds":1}`))
	got, err := AsTaskParams(p, 0)
	if err != nil || string(got) != `{"name":"research","arguments":{"seconds":1},"task":{}}` {
		t.Fatalf("%s %v", got, err)
	}
	got, _ = AsTaskParams(json.RawMessage(`{}`), 60000)
	if string(got) != `{"task":{"ttl":60000}}` {
		t.Fatalf("%s", got)
	}
	if again, _ := AsTaskParams(got, 5); string(again) != string(got) {
		t.Errorf("a second task member: %s", again)
	}
	if _, err := AsTaskParams(json.RawMessage(`[1]`), 0); err == nil {
		t.Error("an array took a task member")
	}
}

func TestCheckDeclaredTasks(t *testing.T) {
	peer := func(caps string) session.PeerInfo {
		return session.PeerInfo{ProtocolVersion: "2025-11-25", Capabilities: json.RawMessage(caps)}
	}
	for _, c := range []struct {
		caps, method string
		refused      bool
	}{
		{`{}`, "tasks/list", true},
		{`{"tasks":{"cancel":{}}}`, "tasks/list", true},
		{`{"tasks":{"list":{}}}`, "tasks/list", false},
		{`{"tasks":{"list":{}}}`, "tasks/cancel", true},
		{`{"tasks":{"cancel":{}}}`, "tasks/cancel", false},
		{`{"tasks":{}}`, "tasks/get", false},
		{`{}`, "tasks/result", true},
	} {
		err := CheckDeclared(peer(c.caps), c.method)
		if (err != nil) != c.refused {
			t.Errorf("CheckDeclared(%s, %s) = %v; refused want %v", c.caps, c.method, err, c.refused)
		}
	}
}

// taskServer is a scripted task receiver: tools/call creates task "t1";
// tasks/get answers the statuses in order (the last one again once they
// run out); tasks/result waits until release is closed.
type taskServer struct {
	mu       sync.Mutex
	statuses []string
	gets     int
	// resultAsked is closed at the first tasks/result, with the status
	// the task had then.
	resultAsked chan struct{}
	askedAt     string
	release     chan struct{}
	once        sync.Once
}

func (ts *taskServer) status() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	i := min(ts.gets, len(ts.statuses)-1)
	return ts.statuses[i]
}

func startTaskServer(t *testing.T, statuses ...string) (*session.Session, *clocktest.Clock, *taskServer) {
	t.Helper()
	ts := &taskServer{statuses: statuses, resultAsked: make(chan struct{}), release: make(chan struct{})}
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/call": func(context.Context, *session.Incoming) (any, error) {
			return json.RawMessage(`{"task":{"taskId":"t1","status":"working","pollInterval":200}}`), nil
		},
		"tasks/get": func(context.Context, *session.Incoming) (any, error) {
			st := ts.status()
			ts.mu.Lock()
			ts.gets++
			ts.mu.Unlock()
			return map[string]any{"taskId": "t1", "status": st, "pollInterval": 200}, nil
		},
		"tasks/result": func(ctx context.Context, _ *session.Incoming) (any, error) {
			ts.once.Do(func() {
				ts.mu.Lock()
				ts.askedAt = ts.statuses[min(max(ts.gets-1, 0), len(ts.statuses)-1)]
				ts.mu.Unlock()
				close(ts.resultAsked)
			})
			select {
			case <-ts.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return json.RawMessage(`{"content":[{"type":"text","text":"the answer"}]}`), nil
		},
	}})
	// The result is released once asked for: what matters is when.
	go func() {
		<-ts.resultAsked
		close(ts.release)
	}()
	clk := clocktest.New()
	cli := session.New(a, session.Config{Clock: clk})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	return cli, clk, ts
}

// startTask calls the tool as a task and returns the task row.
func startTask(t *testing.T, cli *session.Session) session.Ref {
	t.Helper()
	params, _ := AsTaskParams(json.RawMessage(`{"name":"x","arguments":{}}`), 0)
	c, err := cli.Call(testContext(t), "tools/call", params, session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(testContext(t)); err != nil {
		t.Fatal(err)
	}
	info, _ := cli.Request(c.Ref()).Info()
	if info.TaskRow().Seq == 0 {
		t.Fatal("no task row")
	}
	return info.TaskRow()
}

// follow runs FollowTask in the background, moving the fake clock until
// it returns.
func follow(t *testing.T, cli *session.Session, clk *clocktest.Clock, ref session.Ref, ts *taskServer) session.RequestInfo {
	t.Helper()
	type res struct {
		info session.RequestInfo
		err  error
	}
	done := make(chan res, 1)
	go func() {
		info, err := FollowTask(testContext(t), cli, ref, FollowOptions{})
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

// FollowTask polls at the server's interval until the task completes,
// then fetches its result through tasks/result.
func TestFollowTaskPollsThenFetchesTheResult(t *testing.T) {
	cli, clk, ts := startTaskServer(t, "working", "working", "completed")
	ref := startTask(t, cli)
	info := follow(t, cli, clk, ref, ts)
	if info.State != session.Completed || !strings.Contains(string(info.Result), "the answer") {
		t.Fatalf("state %v result %s", info.State, info.Result)
	}
	if ts.askedAt != session.TaskCompleted {
		t.Errorf("tasks/result was sent while the task was %q; want once it completed", ts.askedAt)
	}
	if info.Task.Polls < 3 {
		t.Errorf("%d polls", info.Task.Polls)
	}
}

// input_required sends tasks/result at once: the server delivers its own
// requests before that answer.
func TestFollowTaskFetchesOnInputRequired(t *testing.T) {
	cli, clk, ts := startTaskServer(t, "input_required")
	ref := startTask(t, cli)
	info := follow(t, cli, clk, ref, ts)
	if ts.askedAt != session.TaskInputRequired || info.State != session.Completed {
		t.Fatalf("asked at %q, state %v", ts.askedAt, info.State)
	}
}

// ListTasks reads every page of tasks/list.
func TestListTasks(t *testing.T) {
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tasks/list": func(_ context.Context, in *session.Incoming) (any, error) {
			if strings.Contains(string(in.Params), "p2") {
				return json.RawMessage(`{"tasks":[{"taskId":"b","status":"completed"}]}`), nil
			}
			return json.RawMessage(`{"tasks":[{"taskId":"a","status":"working","statusMessage":"hm"}],"nextCursor":"p2"}`), nil
		},
	}})
	cli := session.New(a, session.Config{})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	list, err := ListTasks(testContext(t), cli, ListOptions{})
	if err != nil || len(list.Tasks) != 2 || list.Tasks[0].StatusMessage != "hm" || list.Tasks[1].Status != "completed" || list.Pages != 2 {
		t.Fatalf("%+v %v", list, err)
	}
}

// One entry that is not a Task leaves the others listed, and says why.
func TestListTasksKeepsTheGoodOnes(t *testing.T) {
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tasks/list": func(context.Context, *session.Incoming) (any, error) {
			return json.RawMessage(`{"tasks":[{"taskId":"a","status":"working"},{"status":7},"x",{"taskId":"c","status":"failed"}]}`), nil
		},
	}})
	cli := session.New(a, session.Config{})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	list, err := ListTasks(testContext(t), cli, ListOptions{})
	if err != nil || len(list.Tasks) != 2 || list.Tasks[0].ID != "a" || list.Tasks[1].ID != "c" || len(list.Raw) != 2 {
		t.Fatalf("%+v %v; want a and c", list, err)
	}
	if len(list.Malformed) != 2 || !strings.Contains(list.Malformed[0], `{"status":7}`) || !strings.Contains(list.Malformed[1], `"x"`) {
		t.Fatalf("malformed %q; want the two bad entries", list.Malformed)
	}
}

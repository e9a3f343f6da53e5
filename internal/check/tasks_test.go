package check

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// taskMisbehaviour is what a test task server gets wrong about
// tasks/cancel; the zero value gets it right.
type taskMisbehaviour struct {
	// noTasks declares no tasks capability.
	noTasks bool
	// keepWorking answers tasks/cancel with the task still working.
	keepWorking bool
	// revive completes the task after it was cancelled, as tasks/get says.
	revive bool
	// acceptTerminal answers a cancel of a terminal task as if it worked.
	acceptTerminal bool
	// wrongCode refuses a cancel of a terminal task with -32603.
	wrongCode bool
	// fast ends its task at once, before any cancel can reach it.
	fast bool
	// refuseRunning refuses tasks/cancel of a working task with -32602,
	// as if it were terminal.
	refuseRunning bool
	// failRunning fails tasks/cancel of a working task with -32603.
	failRunning bool
}

// taskServer is a raw JSON-RPC server with one tool that runs only as a
// task, "study", whose tasks last a few seconds unless cancelled.
type taskServer struct {
	conn *transporttest.End
	bad  taskMisbehaviour

	mu     sync.Mutex
	status map[string]string // by task id
	next   int
}

func serveTasks(conn *transporttest.End, bad taskMisbehaviour) {
	ts := &taskServer{conn: conn, bad: bad, status: map[string]string{}}
	go ts.read()
}

func (ts *taskServer) send(v any) {
	b, _ := json.Marshal(v)
	_ = ts.conn.Send(b)
}

func (ts *taskServer) respond(id json.RawMessage, result any) {
	ts.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (ts *taskServer) refuse(id json.RawMessage, code int, msg string) {
	ts.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (ts *taskServer) task(id string) map[string]any {
	return map[string]any{"taskId": id, "status": ts.status[id], "createdAt": "2026-01-02T03:04:05Z", "ttl": 60000}
}

func (ts *taskServer) read() {
	for {
		msg, err := ts.conn.Recv()
		if err != nil {
			return
		}
		var r rawMessage
		if json.Unmarshal(msg.Data, &r) != nil || r.ID == nil {
			continue
		}
		var p struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(r.Params, &p)
		ts.mu.Lock()
		switch r.Method {
		case "initialize":
			caps := map[string]any{"tools": map[string]any{}}
			if !ts.bad.noTasks {
				caps["tasks"] = map[string]any{"cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
			}
			ts.respond(r.ID, map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps,
				"serverInfo": map[string]any{"name": "tasky", "version": "1"}})
		case "tools/list":
			ts.respond(r.ID, map[string]any{"tools": []any{map[string]any{"name": "study",
				"inputSchema": map[string]any{"type": "object"}, "execution": map[string]any{"taskSupport": "required"}}}})
		case "ping":
			ts.respond(r.ID, map[string]any{})
		case "tools/call":
			ts.next++
			id := "t" + string(rune('0'+ts.next))
			ts.status[id] = "working"
			if ts.bad.fast {
				ts.status[id] = "completed"
			}
			ts.respond(r.ID, map[string]any{"task": ts.task(id)})
		case "tasks/get":
			if ts.status[p.TaskID] == "" {
				ts.refuse(r.ID, -32602, "Task not found")
				break
			}
			ts.respond(r.ID, ts.task(p.TaskID))
		case "tasks/cancel":
			switch st := ts.status[p.TaskID]; {
			case st == "":
				ts.refuse(r.ID, -32602, "Task not found")
			case st == "completed" || st == "failed" || st == "cancelled":
				switch {
				case ts.bad.acceptTerminal:
					ts.respond(r.ID, ts.task(p.TaskID))
				case ts.bad.wrongCode:
					ts.refuse(r.ID, -32603, "already over")
				default:
					ts.refuse(r.ID, -32602, "Cannot cancel task: already in terminal status '"+st+"'")
				}
			case ts.bad.keepWorking:
				ts.respond(r.ID, ts.task(p.TaskID))
			case ts.bad.refuseRunning:
				ts.refuse(r.ID, -32602, "Cannot cancel task")
			case ts.bad.failRunning:
				ts.refuse(r.ID, -32603, "internal error")
			default:
				ts.status[p.TaskID] = "cancelled"
				ts.respond(r.ID, ts.task(p.TaskID))
				if ts.bad.revive {
					ts.status[p.TaskID] = "completed" // its work went on
				}
			}
		}
		ts.mu.Unlock()
	}
}

// runTasks grades a task server with check 7 only.
func runTasks(t *testing.T, bad taskMisbehaviour) Result {
	t.Helper()
	conn := connected(t, func(b *transporttest.End) { serveTasks(b, bad) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, conn, testOptions(7))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return result(t, rep, 7)
}

// Check 7 passes a server that cancels a running task and refuses to
// cancel a finished one, and fails each way of getting it wrong, on the
// rule that was broken.
func TestCheck7TasksCancel(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		bad    taskMisbehaviour
		status Status
		rule   Rule
		fact   string
	}{
		"right":          {taskMisbehaviour{}, Pass, ruleTaskCancelled, "refused with -32602"},
		"keep working":   {taskMisbehaviour{keepWorking: true}, Fail, ruleTaskCancelled, `answered with status "working"`},
		"revive":         {taskMisbehaviour{revive: true}, Fail, ruleTaskStaysCancelled, `the task is "completed", not cancelled`},
		"accept ended":   {taskMisbehaviour{acceptTerminal: true}, Fail, ruleTaskRefuseTerminal, "finished task was accepted"},
		"wrong code":     {taskMisbehaviour{wrongCode: true}, Fail, ruleTaskRefuseTerminal, "refused with -32603, not -32602"},
		"over too early": {taskMisbehaviour{fast: true}, Pass, ruleTaskRefuseTerminal, "not tested: the task ended (completed)"},
		"no tasks":       {taskMisbehaviour{noTasks: true}, Skip, ruleTaskCancelled, ""},
		"refuse running": {taskMisbehaviour{refuseRunning: true}, Fail, ruleTaskCancelled, "on a running task (status working) was refused"},
		"fail running":   {taskMisbehaviour{failRunning: true}, Fail, ruleTaskCancelled, "tasks/cancel on a running task failed"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := runTasks(t, c.bad)
			facts := strings.Join(res.Evidence.Facts, "\n")
			if res.Status != c.status || res.Rule.Sentence != c.rule.Sentence || !strings.Contains(facts, c.fact) {
				t.Errorf("status %s, rule %q, reason %q; want %s on %q with %q; facts:\n%s",
					res.Status, res.Rule.Sentence, res.Reason, c.status, c.rule.Sentence, c.fact, facts)
			}
		})
	}
}

// The demo server passes check 7.
func TestCheck7Demo(t *testing.T) {
	t.Parallel()
	conn := connected(t, func(b *transporttest.End) { demo.NewSession(b, nil) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, conn, testOptions(7))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, rep, 7, Pass, Must)
}

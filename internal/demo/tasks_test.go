package demo

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/session"
)

// createResearch calls research as a task and returns its task id.
func createResearch(t *testing.T, cli *session.Session, seconds string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	raw, err := cli.Do(ctx, "tools/call",
		json.RawMessage(`{"name":"research","arguments":{"seconds":`+seconds+`},"task":{"ttl":60000}}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Task session.TaskState }
	if err := json.Unmarshal(raw, &r); err != nil || r.Task.ID == "" || r.Task.Status != session.TaskWorking {
		t.Fatalf("CreateTaskResult %s (%v)", raw, err)
	}
	if r.Task.PollEvery() != taskPollInterval || r.Task.TTL == nil || *r.Task.TTL != 60000 || r.Task.CreatedAt == "" {
		t.Errorf("task %+v", r.Task)
	}
	return r.Task.ID
}

func taskDo(t *testing.T, cli *session.Session, method, id string) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	return cli.Do(ctx, method, map[string]string{"taskId": id}, session.CallOptions{NoProgressToken: true})
}

func rpcCode(err error) int64 {
	var e *session.RPCError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// research requires a task: a plain call is refused with -32601, as the
// spec asks; a tool without task support refuses a task the same way.
func TestResearchRequiresATask(t *testing.T) {
	cli, _ := start(t)
	if _, err := do(t, cli, "research", `{}`); rpcCode(err) != session.CodeMethodNotFound {
		t.Fatalf("plain call: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	_, err := cli.Do(ctx, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"x"},"task":{}}`), session.CallOptions{})
	if rpcCode(err) != session.CodeMethodNotFound {
		t.Fatalf("echo as a task: %v", err)
	}
}

// A research task runs to completion; tasks/result answers the tool's
// result with the related-task _meta; tasks/list lists it.
func TestResearchTaskCompletes(t *testing.T) {
	cli, _ := start(t)
	id := createResearch(t, cli, "0.01")
	raw, err := taskDo(t, cli, "tasks/result", id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) ||
		!strings.Contains(string(raw), "research done") {
		t.Fatalf("tasks/result %s", raw)
	}
	raw, _ = taskDo(t, cli, "tasks/get", id)
	if st, _ := session.ParseTaskState(raw); st.Status != session.TaskCompleted {
		t.Fatalf("tasks/get %s", raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	raw, err = cli.Do(ctx, "tasks/list", nil, session.CallOptions{})
	if err != nil || !strings.Contains(string(raw), id) {
		t.Fatalf("tasks/list %s %v", raw, err)
	}
	if _, err := taskDo(t, cli, "tasks/cancel", id); rpcCode(err) != session.CodeInvalidParams ||
		!strings.Contains(err.Error(), "already in terminal status 'completed'") {
		t.Fatalf("cancel of a completed task: %v", err)
	}
}

// tasks/cancel ends a running research cancelled before it answers; a
// second one is refused with -32602; tasks/result then says there is no
// result.
func TestResearchTaskCancel(t *testing.T) {
	cli, log := start(t)
	id := createResearch(t, cli, "600")
	raw, err := taskDo(t, cli, "tasks/cancel", id)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := session.ParseTaskState(raw); st.Status != session.TaskCancelled {
		t.Fatalf("tasks/cancel %s", raw)
	}
	if _, err := taskDo(t, cli, "tasks/cancel", id); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("second cancel: %v", err)
	}
	if _, err := taskDo(t, cli, "tasks/result", id); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("tasks/result of a cancelled task: %v", err)
	}
	if _, err := taskDo(t, cli, "tasks/get", "nope"); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("unknown task: %v", err)
	}
	waitLog(t, log, "research stopped")
}

// waitLog waits for the demo's log to show want: the task's work stops
// in its own goroutine, after tasks/cancel was answered.
func waitLog(t *testing.T, log *buffertest.Buffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); !strings.Contains(log.String(), want); {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q:\n%s", want, log.String())
		}
		time.Sleep(time.Millisecond)
	}
}

package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/session"
)

// callRaw calls tool name with args and returns the raw result.
func callRaw(t *testing.T, cli *session.Session, name, args string) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	return cli.Do(ctx, "tools/call", callParams(name, args), session.CallOptions{})
}

// startModern is start with the client speaking 2026-07-28 and declaring
// caps in every request.
func startModern(t *testing.T, caps string) (*session.Session, *buffertest.Buffer) {
	t.Helper()
	cli, log := start(t)
	cli.UseEra2026(session.Era2026Options{Capabilities: json.RawMessage(caps)})
	return cli, log
}

// In 2026-07-28 the demo serves research through the tasks extension: a
// plain tools/call of a client that declared it answers with the task's
// fields at top level (resultType "task"); tasks/get carries the result;
// tasks/result and tasks/list are not part of it.
func TestModernResearchIsAnExtensionTask(t *testing.T) {
	cli, _ := startModern(t, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	raw, err := callRaw(t, cli, "research", `{"seconds":0.1}`)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ResultType string `json:"resultType"`
		session.TaskState
		TTLMs  *float64        `json:"ttlMs"`
		PollMs *float64        `json:"pollIntervalMs"`
		Task   json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.ResultType != "task" || created.ID == "" ||
		created.Status != session.TaskWorking || created.TTLMs == nil || created.PollMs == nil || created.Task != nil {
		t.Fatalf("CreateTaskResult %s (%v)", raw, err)
	}
	deadline := time.Now().Add(hangGuard)
	for {
		got, err := taskDo(t, cli, "tasks/get", created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), `"status":"completed"`) {
			if !strings.Contains(string(got), `"result":{"content":[{"type":"text","text":"research done in 0.1s: 4 stages"}]}`) ||
				!strings.Contains(string(got), `"resultType":"complete"`) {
				t.Fatalf("completed task %s", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never completed: %s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, m := range []string{"tasks/result", "tasks/list"} {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		_, err := cli.Do(ctx, m, map[string]string{"taskId": created.ID}, session.CallOptions{NoProgressToken: true})
		cancel()
		if err == nil {
			t.Errorf("%s answered in 2026-07-28", m)
		}
	}
}

// tasks/cancel is acknowledged with an empty result, the work stops, the
// task ends cancelled, and the log names the signal.
func TestModernResearchCancelIsAcknowledged(t *testing.T) {
	cli, log := startModern(t, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	raw, err := callRaw(t, cli, "research", `{"seconds":30}`)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(raw, &created)
	ack, err := taskDo(t, cli, "tasks/cancel", created.TaskID)
	if err != nil || strings.Contains(string(ack), "status") {
		t.Fatalf("tasks/cancel answered %s (%v), want an empty acknowledgement", ack, err)
	}
	got, _ := taskDo(t, cli, "tasks/get", created.TaskID)
	if !strings.Contains(string(got), `"status":"cancelled"`) {
		t.Errorf("after the cancel: %s", got)
	}
	if !strings.Contains(log.String(), `signal="tasks/cancel (io.modelcontextprotocol/tasks)"`) {
		t.Errorf("log %s", log.String())
	}
}

// A client that did not declare the extension gets -32021 for research,
// which runs only as a task.
func TestModernResearchWithoutTheExtension(t *testing.T) {
	cli, _ := startModern(t, `{}`)
	if _, err := do(t, cli, "research", `{}`); rpcCode(err) != session.CodeMissingClientCapability {
		t.Fatalf("err %v, want -32021", err)
	}
}

package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

func taskID(t *testing.T, res json.RawMessage) string {
	t.Helper()
	var r struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Task.TaskID == "" || r.Task.Status != TaskWorking {
		t.Fatalf("not a CreateTaskResult: %s %v", res, err)
	}
	return r.Task.TaskID
}

func (p *clientPair) taskStatus(t *testing.T, id string) string {
	t.Helper()
	res, err := result(t, p.ask(t, "tasks/get", `{"taskId":"`+id+`"}`))
	if err != nil {
		t.Fatalf("tasks/get: %v", err)
	}
	var w struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(res, &w)
	return w.Status
}

func (p *clientPair) waitEvent(t *testing.T, what string, ok func(any) bool) any {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case e := <-p.events:
			if ok(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no event: %s", what)
		}
	}
}

// A task-augmented sampling request is answered at once with its task;
// the answer becomes the task's result, which tasks/result returns with
// the related-task _meta.
func TestHostedTaskRunsTheQuestion(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Sampling: true, Tasks: true}, nil)
	res, err := result(t, p.ask(t, "sampling/createMessage", `{"messages":[],"maxTokens":5,"task":{"ttl":60000}}`))
	if err != nil {
		t.Fatal(err)
	}
	id := taskID(t, res)
	q := p.question(t)
	if q.TaskID != id {
		t.Fatalf("question's task %q, want %q", q.TaskID, id)
	}
	if st := p.taskStatus(t, id); st != TaskWorking {
		t.Fatalf("status %s", st)
	}
	blocked := p.ask(t, "tasks/result", `{"taskId":"`+id+`"}`)
	select {
	case <-blocked.Done():
		t.Fatal("tasks/result answered before the task finished")
	case <-time.After(20 * time.Millisecond):
	}
	if err := q.Answer(SamplingText("hi", SamplingModel), nil); err != nil {
		t.Fatal(err)
	}
	res, err = result(t, blocked)
	if err != nil || !strings.Contains(string(res), `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) || !strings.Contains(string(res), `"text":"hi"`) {
		t.Fatalf("tasks/result: %s %v", res, err)
	}
	if st := p.taskStatus(t, id); st != TaskCompleted {
		t.Fatalf("status %s", st)
	}
	if _, err := result(t, p.ask(t, "tasks/cancel", `{"taskId":"`+id+`"}`)); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("cancelling a finished task: %v", err)
	}
	list, _ := result(t, p.ask(t, "tasks/list", `{}`))
	if !strings.Contains(string(list), id) {
		t.Fatalf("tasks/list: %s", list)
	}
	if _, err := result(t, p.ask(t, "tasks/get", `{"taskId":"nope"}`)); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("unknown task: %v", err)
	}
}

// tasks/cancel withdraws the question: the answer after it is refused and
// the task stays cancelled.
func TestHostedTaskCancelledByServer(t *testing.T) {
	p := newClientPair(t, ClientFeatures{ElicitForm: true, Tasks: true}, nil)
	res, _ := result(t, p.ask(t, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object"},"task":{}}`))
	id := taskID(t, res)
	q := p.question(t)
	res, err := result(t, p.ask(t, "tasks/cancel", `{"taskId":"`+id+`"}`))
	if err != nil || !strings.Contains(string(res), `"status":"cancelled"`) {
		t.Fatalf("tasks/cancel: %s %v", res, err)
	}
	recvWithin(t, q.Withdrawn(), "the question withdrawn by tasks/cancel")
	if err := q.Answer(ElicitResult(ElicitAccept, json.RawMessage(`{}`)), nil); err == nil || !strings.Contains(err.Error(), "tasks/cancel") {
		t.Fatalf("answer after tasks/cancel: %v", err)
	}
	if st := p.taskStatus(t, id); st != TaskCancelled {
		t.Fatalf("status %s", st)
	}
	p.waitEvent(t, "the task's cancel", func(e any) bool {
		tc, ok := e.(TaskChanged)
		return ok && tc.TaskID == id && tc.Status == TaskCancelled
	})
}

// A declined sampling task fails, and tasks/result gives the error the
// request would have.
func TestHostedTaskDeclinedSampling(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Sampling: true, Tasks: true}, nil)
	res, _ := result(t, p.ask(t, "sampling/createMessage", `{"messages":[],"task":{}}`))
	id := taskID(t, res)
	_ = p.question(t).Answer(nil, SamplingDeclined(""))
	if _, err := result(t, p.ask(t, "tasks/result", `{"taskId":"`+id+`"}`)); rpcCode(err) != CodeSamplingRejected {
		t.Fatalf("tasks/result of a declined task: %v", err)
	}
	if st := p.taskStatus(t, id); st != TaskFailed {
		t.Fatalf("status %s", st)
	}
}

// The ttl passes while the question waits: it is withdrawn and the task
// is gone.
func TestHostedTaskExpires(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Sampling: true, Tasks: true}, nil)
	res, _ := result(t, p.ask(t, "sampling/createMessage", `{"messages":[],"task":{"ttl":1000}}`))
	id := taskID(t, res)
	q := p.question(t)
	p.clock.Advance(time.Second)
	recvWithin(t, q.Withdrawn(), "the question withdrawn when the task's ttl passed")
	if q.Why() != "the task's ttl of 1s passed" {
		t.Errorf("why: %q", q.Why())
	}
	if _, err := result(t, p.ask(t, "tasks/get", `{"taskId":"`+id+`"}`)); rpcCode(err) != session.CodeInvalidParams {
		t.Fatalf("expired task: %v", err)
	}
}

func TestElicitationCompleteNotification(t *testing.T) {
	p := newClientPair(t, ClientFeatures{ElicitURL: true}, nil)
	c := p.ask(t, "elicitation/create", `{"mode":"url","message":"m","url":"https://x.example","elicitationId":"e1"}`)
	_ = p.question(t).Answer(ElicitResult(ElicitAccept, nil), nil)
	if _, err := result(t, c); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"e1", "e1", "nope"} {
		_ = p.server.Notify("notifications/elicitation/complete", map[string]string{"elicitationId": id})
	}
	var got []bool
	for range 3 {
		e := p.waitEvent(t, "complete", func(e any) bool { _, ok := e.(ElicitationComplete); return ok }).(ElicitationComplete)
		got = append(got, e.Known)
		if e.Known && e.Ref != c.Ref() && e.Ref.ID != c.ID() {
			t.Errorf("ref %+v", e.Ref)
		}
	}
	// Known once; the second time it is already completed, then unknown.
	if got[0] != true || got[1] || got[2] {
		t.Fatalf("known: %v", got)
	}
}

func TestURLWarnings(t *testing.T) {
	host, w := URLWarnings("http://bank.example@xn--80ak6aa92e.com/login")
	if host != "xn--80ak6aa92e.com" || len(w) != 3 {
		t.Fatalf("%s %q", host, w)
	}
	if host, w := URLWarnings("https://example.com/a"); host != "example.com" || len(w) != 0 {
		t.Fatalf("%s %q", host, w)
	}
}

// A policy answers at once; the task it answers is still created working,
// and only then completed: the question is asked once the CreateTaskResult
// was written, so the server hears of the task before its end (the
// reference server polls tasks/get only for a task not yet ended).
func TestHostedTaskAnsweredAtOnceIsCreatedWorking(t *testing.T) {
	var p *clientPair
	ask := func(q *Question) {
		_ = q.Answer(SamplingText("at once", "policy"), nil)
		// Waiting here for the task's end: were the question asked before
		// the CreateTaskResult was built, it would say completed.
		p.waitEvent(t, "the task's end", func(e any) bool {
			tc, ok := e.(TaskChanged)
			return ok && tc.Status == TaskCompleted
		})
	}
	p = newClientPair(t, ClientFeatures{Sampling: true, Tasks: true}, ask)
	res, err := result(t, p.ask(t, "sampling/createMessage", `{"messages":[],"task":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	id := taskID(t, res) // fails unless the status is working
	for st := p.taskStatus(t, id); st != TaskCompleted; st = p.taskStatus(t, id) {
		time.Sleep(time.Millisecond)
	}
}

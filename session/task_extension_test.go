package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// extCaps declares the tasks extension, as mcpoke does when it follows
// tasks in 2026-07-28.
const extCaps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// modernHarness is a harness whose session speaks 2026-07-28 with caps.
func modernHarness(t *testing.T, caps string) *harness {
	t.Helper()
	h := newHarness(t, harnessOpts{})
	h.s.UseEra2026(Era2026Options{Capabilities: json.RawMessage(caps)})
	return h
}

// extTaskCall sends a plain tools/call and answers it with the
// extension's CreateTaskResult (fields at top level); it returns the call,
// the task row's ref and the tools/call frame the client wrote.
func extTaskCall(t *testing.T, h *harness, taskID, status string) (*Call, Ref, wireMessage) {
	t.Helper()
	c, err := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "research", "arguments": map[string]any{}}, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sent := h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"task","taskId":%q,"status":%q,"createdAt":"2026-07-28T00:00:00Z",`+
		`"lastUpdatedAt":"2026-07-28T00:00:00Z","ttlMs":60000,"pollIntervalMs":250}}`, c.ID(), taskID, status)
	if _, st, _ := waitResult(t, c); st != Completed {
		t.Fatalf("the tools/call answered with a task ended %v, want completed", st)
	}
	info, _ := h.s.Request(c.Ref()).Info()
	if info.TaskRow().Seq == 0 {
		t.Fatal("the CreateTaskResult made no task row")
	}
	return c, info.TaskRow(), sent
}

// poll sends tasks/get for ref and answers it with result.
func poll(t *testing.T, h *harness, ref Ref, result string) {
	t.Helper()
	g, err := h.s.Request(ref).GetTask(context.Background(), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := h.readFrame()
	if m.Method != "tasks/get" {
		t.Fatalf("want tasks/get, got %s", m.Method)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":%s}`, g.ID(), result)
	waitResult(t, g)
}

// A tools/call of a session that declared the extension takes the
// server's unsolicited CreateTaskResult: the call ends, and its task is
// a row of its own, with ttlMs and pollIntervalMs read.
func TestExtensionTaskResultMakesATaskRow(t *testing.T) {
	h := modernHarness(t, extCaps)
	c, ref, sent := extTaskCall(t, h, "x1", TaskWorking)
	if !strings.Contains(string(sent.Params), `"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`) {
		t.Errorf("the tools/call does not declare the extension: %s", sent.Params)
	}
	if strings.Contains(string(sent.Params), `"task"`) {
		t.Errorf("the tools/call asks for a task; in the extension the server decides: %s", sent.Params)
	}
	info, _ := h.s.Request(ref).Info()
	if !info.Task.Extension || info.TaskID != "x1" || info.State != Pending || info.TaskParent() != c.Ref() {
		t.Fatalf("task row %+v, task %+v", info, info.Task)
	}
	if info.Task.State.PollEvery() != 250*time.Millisecond || info.Task.State.TTL == nil || *info.Task.State.TTL != 60000 {
		t.Errorf("poll %v ttl %v, want 250ms and 60000", info.Task.State.PollEvery(), info.Task.State.TTL)
	}
	if ci, _ := h.s.Request(c.Ref()).Info(); ci.ResultType != ResultTask {
		t.Errorf("the call's resultType %q", ci.ResultType)
	}
}

// A CreateTaskResult where none may come is an invalid response: the
// request fails, the violation is recorded, and no task is followed.
func TestExtensionTaskWhereNoneMayCome(t *testing.T) {
	task := `{"resultType":"task","taskId":"x","status":"working","ttlMs":null}`
	for _, c := range []struct {
		name, caps, method string
		legacy             bool
	}{
		{"not declared", `{}`, "tools/call", false},
		{"legacy session", extCaps, "tools/call", true},
		{"not tools/call", extCaps, "prompts/get", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			if !c.legacy {
				h.s.UseEra2026(Era2026Options{Capabilities: json.RawMessage(c.caps)})
			}
			call, _ := h.s.Call(context.Background(), c.method, map[string]any{"name": "x"}, CallOptions{})
			h.readFrame()
			h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":%s}`, call.ID(), task)
			if _, st, _ := waitResult(t, call); st != Failed {
				t.Fatalf("state %v, want failed", st)
			}
			h.events.waitFor(t, "the violation", func(e Event) bool {
				v, ok := e.(Violation)
				return ok && v.Kind == ViolationUnsolicitedTask && v.Ref.Seq == call.Seq()
			})
			if info, _ := h.s.Request(call.Ref()).Info(); info.TaskRow().Seq != 0 {
				t.Error("a task row for a task that may not be")
			}
		})
	}
}

// Wrong shapes of resultType "task": no taskId, no status, a status the
// spec does not define. The call fails; nothing is followed.
func TestExtensionMalformedCreateTaskResult(t *testing.T) {
	for _, res := range []string{
		`{"resultType":"task","status":"working"}`,
		`{"resultType":"task","taskId":"x"}`,
		`{"resultType":"task","taskId":"x","status":"done"}`,
		`{"resultType":"task","task":{"taskId":"x","status":"working"}}`,
	} {
		h := modernHarness(t, extCaps)
		call, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
		h.readFrame()
		h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":%s}`, call.ID(), res)
		if _, st, _ := waitResult(t, call); st != Failed {
			t.Errorf("%s: state %v, want failed", res, st)
		}
		h.events.waitFor(t, "the violation", func(e Event) bool {
			v, ok := e.(Violation)
			return ok && v.Kind == ViolationMalformedTask
		})
	}
}

// tasks/get carries the result of a completed task, and the JSON-RPC
// error of a failed one; no tasks/result is sent.
func TestExtensionTaskGetCarriesTheOutcome(t *testing.T) {
	h := modernHarness(t, extCaps)
	_, ref, _ := extTaskCall(t, h, "x1", TaskWorking)
	poll(t, h, ref, `{"resultType":"complete","taskId":"x1","status":"working","statusMessage":"half"}`)
	poll(t, h, ref, `{"resultType":"complete","taskId":"x1","status":"completed","result":{"content":[{"type":"text","text":"done"}]}}`)
	info, _ := h.s.Request(ref).Info()
	if info.State != Completed || string(info.Result) != `{"content":[{"type":"text","text":"done"}]}` {
		t.Fatalf("state %v result %s", info.State, info.Result)
	}
	if info.Task.Polls != 2 || len(info.Task.Updates) != 3 {
		t.Errorf("polls %d updates %+v", info.Task.Polls, info.Task.Updates)
	}

	_, ref2, _ := extTaskCall(t, h, "x2", TaskWorking)
	poll(t, h, ref2, `{"resultType":"complete","taskId":"x2","status":"failed","error":{"code":-32603,"message":"rate limited"}}`)
	info, _ = h.s.Request(ref2).Info()
	if info.State != Failed || info.Error == nil || info.Error.Code != -32603 || info.Error.Message != "rate limited" {
		t.Fatalf("state %v error %+v", info.State, info.Error)
	}
	for _, f := range h.wire.out {
		if strings.Contains(string(f), "tasks/result") {
			t.Fatalf("tasks/result sent in the extension: %s", f)
		}
	}
}

// A misbehaving server: completed without a result, failed without an
// error. The task row fails, saying why.
func TestExtensionTaskGetWithoutPayloadFails(t *testing.T) {
	for _, res := range []string{
		`{"resultType":"complete","taskId":"x1","status":"completed"}`,
		`{"resultType":"complete","taskId":"x1","status":"failed"}`,
		`{"resultType":"complete","taskId":"x1","status":"finished"}`,
	} {
		h := modernHarness(t, extCaps)
		_, ref, _ := extTaskCall(t, h, "x1", TaskWorking)
		poll(t, h, ref, res)
		info, _ := h.s.Request(ref).Info()
		if info.State != Failed || info.Failure == "" {
			t.Errorf("%s: state %v failure %q", res, info.State, info.Failure)
		}
	}
}

// A terminal status is final: a task said completed that then says
// working went backwards. The row fails and the violation says so.
func TestExtensionTaskStatusGoingBackwards(t *testing.T) {
	h := modernHarness(t, extCaps)
	_, ref, _ := extTaskCall(t, h, "x1", TaskCompleted)
	poll(t, h, ref, `{"resultType":"complete","taskId":"x1","status":"working"}`)
	info, _ := h.s.Request(ref).Info()
	if info.State != Failed || !strings.Contains(info.Failure, "went back from completed to working") {
		t.Fatalf("state %v failure %q", info.State, info.Failure)
	}
}

// The row of an input_required task keeps its inputRequests; tasks/update
// sends the answers as inputResponses, with the taskId.
func TestExtensionTaskInputGoesWithTasksUpdate(t *testing.T) {
	h := modernHarness(t, extCaps)
	_, ref, _ := extTaskCall(t, h, "x1", TaskWorking)
	poll(t, h, ref, `{"resultType":"complete","taskId":"x1","status":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"message":"who?"}}}}`)
	info, _ := h.s.Request(ref).Info()
	if info.State != Pending || !strings.Contains(string(info.Task.InputRequests), `"who?"`) {
		t.Fatalf("state %v inputRequests %s", info.State, info.Task.InputRequests)
	}
	u, err := h.s.Request(ref).UpdateTask(context.Background(), map[string]json.RawMessage{"name": json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)}, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := h.readFrame()
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &p)
	if m.Method != "tasks/update" || string(p["taskId"]) != `"x1"` || string(p["inputResponses"]) != `{"name":{"action":"accept","content":{"name":"Ada"}}}` {
		t.Fatalf("%s %s", m.Method, m.Params)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete"}}`, u.ID())
	waitResult(t, u)
	poll(t, h, ref, `{"resultType":"complete","taskId":"x1","status":"working"}`)
	if info, _ := h.s.Request(ref).Info(); info.Task.InputRequests != nil || info.State != Pending {
		t.Errorf("after the answer: state %v inputRequests %s", info.State, info.Task.InputRequests)
	}
}

// tasks/cancel is acknowledged with an empty result; the row stays
// cancelling until tasks/get shows how the task ended, and then says so,
// whatever that was: cancelling a task is cooperative.
func TestExtensionCancelIsAcknowledgedThenTheTaskEndsAsItDid(t *testing.T) {
	for _, c := range []struct {
		name, get string
		want      State
		outcome   string
	}{
		{"honoured", `{"resultType":"complete","taskId":"x1","status":"cancelled"}`, Cancelled,
			"cancel acknowledged; the task ended cancelled"},
		{"ignored", `{"resultType":"complete","taskId":"x1","status":"completed","result":{"content":[]}}`, Completed,
			"cancel acknowledged; the task ended completed: the server did not stop it (cancelling a task is cooperative)"},
		{"failed", `{"resultType":"complete","taskId":"x1","status":"failed","error":{"code":-1,"message":"boom"}}`, Failed,
			"cancel acknowledged; the task ended failed: the server did not stop it (cancelling a task is cooperative)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := modernHarness(t, extCaps)
			_, ref, _ := extTaskCall(t, h, "x1", TaskWorking)
			m := cancelTaskRow(t, h, ref, "user")
			if string(m.Params) == "" || !strings.Contains(string(m.Params), `"taskId":"x1"`) {
				t.Fatalf("tasks/cancel params %s", m.Params)
			}
			h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete"}}`, m.ID)
			h.events.waitFor(t, "the acknowledgement", func(e Event) bool {
				a, ok := e.(TaskCancelAnswered)
				return ok && a.Answer.Acknowledged
			})
			if info, _ := h.s.Request(ref).Info(); info.State != Cancelling {
				t.Fatalf("after the acknowledgement: %v, want cancelling until tasks/get tells", info.State)
			}
			poll(t, h, ref, c.get)
			end := h.events.waitFor(t, "the end", isState(ref.Seq, c.want)).(StateChanged)
			info, _ := h.s.Request(ref).Info()
			if info.Task.Outcome != c.outcome || end.Reason != c.outcome {
				t.Errorf("outcome %q, reason %q; want %q", info.Task.Outcome, end.Reason, c.outcome)
			}
			if info.CancelReason != "user" {
				t.Errorf("cancel reason %q, want the user's", info.CancelReason)
			}
			// The polled status is how the cooperative cancel turned out,
			// asked for: not late traffic.
			if info.LateCount != 0 || len(info.Task.Updates) == 0 || info.Task.Updates[len(info.Task.Updates)-1].Late {
				t.Errorf("late %d, updates %+v; want the outcome recorded as an answer, not late", info.LateCount, info.Task.Updates)
			}
			noCancelNotification(t, h)
		})
	}
}

// A task that ignores the cancel and never ends: the row ends cancelled
// once taskCancelTimeout passed, saying the task had not ended.
func TestExtensionAcknowledgedCancelOfATaskThatNeverEnds(t *testing.T) {
	h := modernHarness(t, extCaps)
	_, ref, _ := extTaskCall(t, h, "x1", TaskWorking)
	m := cancelTaskRow(t, h, ref, "user")
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete"}}`, m.ID)
	h.events.waitFor(t, "the acknowledgement", func(e Event) bool { _, ok := e.(TaskCancelAnswered); return ok })
	poll(t, h, ref, `{"resultType":"complete","taskId":"x1","status":"working"}`)
	if info, _ := h.s.Request(ref).Info(); info.State != Cancelling {
		t.Fatalf("still working: %v", info.State)
	}
	h.clock.Advance(taskCancelTimeout)
	end := h.events.waitFor(t, "cancelled", isState(ref.Seq, Cancelled)).(StateChanged)
	if !strings.Contains(end.Reason, "cancel acknowledged; the task had not ended") || !strings.Contains(end.Reason, "last status working") {
		t.Errorf("reason %q", end.Reason)
	}
}

// An error answer to the extension's tasks/cancel (an unknown task is
// -32602 there, not "already ended") ends the row cancelled, saying why.
func TestExtensionCancelRefusedEndsCancelled(t *testing.T) {
	h := modernHarness(t, extCaps)
	_, ref, _ := extTaskCall(t, h, "x1", TaskWorking)
	m := cancelTaskRow(t, h, ref, "user")
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Task not found"}}`, m.ID)
	end := h.events.waitFor(t, "cancelled", isState(ref.Seq, Cancelled)).(StateChanged)
	if !strings.HasPrefix(end.Reason, "user (tasks/cancel: Task not found") {
		t.Errorf("reason %q", end.Reason)
	}
	if info, _ := h.s.Request(ref).Info(); info.Task.Cancel.Refused() {
		t.Error("an extension's -32602 taken for 2025's 'already ended'")
	}
}

// tasks/result and tasks/list are not part of the extension: a modern
// session does not send them.
func TestExtensionEraHasNoTasksResultOrList(t *testing.T) {
	h := modernHarness(t, extCaps)
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if _, err := h.s.Call(context.Background(), m, map[string]any{}, CallOptions{}); err == nil {
			t.Errorf("%s sent in 2026-07-28", m)
		}
	}
}

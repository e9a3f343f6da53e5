package session

import (
	"context"
	"testing"
)

// A task-augmented request is cancelled with tasks/cancel, never with
// notifications/cancelled (MCP 2025-11-25, cancellation rule 3).
func TestTaskRequestIsCancelledWithTasksCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "research", "task": map[string]any{}}, CallOptions{})
	h.readFrame()
	// Task creation arrives in a later issue; mark the task as created.
	h.s.mu.Lock()
	h.s.table.out[c.ID().raw].info.TaskID = "task-7"
	h.s.mu.Unlock()

	if err := h.s.Request(c.Ref()).Cancel("user"); err != nil {
		t.Fatal(err)
	}
	m := h.readFrame()
	if m.Method != "tasks/cancel" || string(m.Params) != `{"taskId":"task-7"}` || m.ID == nil {
		t.Fatalf("want a tasks/cancel request, got %s %s id=%s", m.Method, m.Params, m.ID)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"taskId":"task-7","status":"cancelled"}}`, m.ID)
	if _, st, _ := waitResult(t, c); st != Cancelled {
		t.Fatalf("state %v", st)
	}
	end := h.events.waitFor(t, "cancelled", isState(c.Seq(), Cancelled)).(StateChanged)
	if end.Reason != "user" {
		t.Errorf("reason %q once tasks/cancel was answered, want the user's %q alone", end.Reason, "user")
	}
	for _, f := range h.wire.out {
		if contains(string(f), "notifications/cancelled") {
			t.Fatalf("a task was cancelled with the notification: %s", f)
		}
	}
}

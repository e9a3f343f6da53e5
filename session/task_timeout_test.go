package session

import (
	"fmt"
	"testing"
	"time"
)

// Once a task has reached a terminal status, its repeated statuses (polls,
// a server that keeps notifying) no longer restart the timeout: the wait
// for its result is bounded by the timeout from the terminal status on.
func TestTerminalTaskStatusesDoNotRestartTheTimeout(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, ref := taskCall(t, h, "t1", CallOptions{Timeout: time.Second})
	h.clock.Advance(600 * time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"working","statusMessage":"still at it"}}`)
	h.events.waitFor(t, "the working status", func(e Event) bool { _, ok := e.(TaskUpdated); return ok })
	h.clock.Advance(600 * time.Millisecond) // 1.2 s in all: the working status restarted it
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed"}}`)
	h.events.waitFor(t, "the completed status", func(e Event) bool {
		u, ok := e.(TaskUpdated)
		return ok && u.Task.Status == TaskCompleted
	})
	for i := range 4 {
		h.clock.Advance(300 * time.Millisecond)
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed","statusMessage":"repeat %d"}}`, i)
		h.events.waitFor(t, "the repeated status", func(e Event) bool {
			u, ok := e.(TaskUpdated)
			return ok && u.Update.StatusMessage == fmt.Sprintf("repeat %d", i)
		})
	}
	// 1.2 s after the terminal status, with no result: timed out, and
	// the task cancelled (tasks/cancel, read so that its write ends).
	if m := h.readFrame(); m.Method != "tasks/cancel" {
		t.Fatalf("got %s %s; want the timed-out task's tasks/cancel", m.Method, m.Params)
	}
	h.events.waitFor(t, "the task row timed out 1 s after its terminal status, its repeats ignored", isState(ref.Seq, TimedOut))
}

package mcp

import (
	"strings"
	"testing"
	"time"
)

// Hosted tasks are named in order, and a ttl of 0 sets no expiry: the
// task waits for its answer however long it takes.
func TestHostedTaskIDsAndZeroTTL(t *testing.T) {
	p := newClientPair(t, ClientFeatures{Sampling: true, Tasks: true}, nil)
	for i, ttl := range []string{`{"ttl":0}`, `{}`} {
		res, err := result(t, p.ask(t, "sampling/createMessage", `{"messages":[],"maxTokens":5,"task":`+ttl+`}`))
		if err != nil {
			t.Fatal(err)
		}
		id := taskID(t, res)
		if want := "mcpoke-task-" + string(rune('1'+i)); id != want {
			t.Errorf("task %d is %q; want %q", i+1, id, want)
		}
		q := p.question(t)
		p.clock.Advance(24 * time.Hour)
		if err := q.Answer(SamplingText("late", SamplingModel), nil); err != nil {
			t.Fatalf("task %s (ttl %s): answer a day later: %v", id, ttl, err)
		}
		res, err = result(t, p.ask(t, "tasks/result", `{"taskId":"`+id+`"}`))
		if err != nil || !strings.Contains(string(res), `"text":"late"`) {
			t.Fatalf("task %s (ttl %s): tasks/result %s %v", id, ttl, res, err)
		}
	}
}

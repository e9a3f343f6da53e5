package check

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// taskCancelTamper is the demo's end of the pipe with its answers to
// tasks/cancel refused (an error) or dropped, as a 2026-07-28 server that
// gets the tasks extension's cancel wrong would send them.
type taskCancelTamper struct {
	transport.Conn
	drop bool

	mu      sync.Mutex
	cancels map[string]bool // ids of the tasks/cancel requests read
}

func (c *taskCancelTamper) Recv() (transport.Message, error) {
	m, err := c.Conn.Recv()
	var r rawMessage
	if err == nil && json.Unmarshal(m.Data, &r) == nil && r.Method == "tasks/cancel" {
		c.mu.Lock()
		c.cancels[string(r.ID)] = true
		c.mu.Unlock()
	}
	return m, err
}

func (c *taskCancelTamper) Send(frame []byte) error {
	var r rawMessage
	if json.Unmarshal(frame, &r) == nil && r.Method == "" && r.ID != nil {
		c.mu.Lock()
		ours := c.cancels[string(r.ID)]
		c.mu.Unlock()
		switch {
		case ours && c.drop:
			return nil
		case ours:
			frame, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.ID, "error": map[string]any{"code": -32603, "message": "cannot cancel"}})
		}
	}
	return c.Conn.Send(frame)
}

// tasks/cancel of a running task must be answered: in 2026-07-28 (the
// tasks extension) it MUST be acknowledged with an empty result, in
// 2025-11-25 the task MUST be cancelled before the answer. Check 7 fails
// a server that refuses it, and one that never answers it, on the
// sentence of the era.
func TestCheck7FailsAnUnansweredOrRefusedTaskCancel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		protocol string
		drop     bool
		rule     Rule
		fact     string
	}{
		{"2026-07-28", false, ruleTaskAcknowledged, "tasks/cancel on the running task was refused: cannot cancel"},
		{"2026-07-28", true, ruleTaskAcknowledged, "tasks/cancel on the running task: no answer within 3s"},
		{"2025-11-25", false, ruleTaskCancelled, "tasks/cancel on a running task failed: cannot cancel"},
		{"2025-11-25", true, ruleTaskCancelled, "tasks/cancel on the running task: no answer within 3s"},
	} {
		a, b := transporttest.Pipe()
		demo.NewSession(&taskCancelTamper{Conn: b, drop: tc.drop, cancels: map[string]bool{}}, nil)
		// As mcpoke check connects: a modern session declares the tasks
		// extension, so that the demo may make a task of a tools/call.
		o := connect.Options{Protocol: tc.protocol, Session: session.Config{UnpredictableIDs: true},
			ModernCapabilities: mcp.ClientFeatures{FollowTasks: true}.Capabilities(session.Era2026Version)}
		conn := connect.Attach(connect.Spec{Name: "test"}, a, o)
		t.Cleanup(func() { conn.Close(); b.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := conn.Initialize(ctx); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		rep, err := Run(ctx, conn, testOptions(7))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		c := expect(t, rep, 7, Fail, Must)
		if c.Sentence != tc.rule.Sentence || !hasFact(c, tc.fact) {
			t.Errorf("%s, drop %v: %q, facts %q", tc.protocol, tc.drop, c.Sentence, c.Evidence.Facts)
		}
	}
}

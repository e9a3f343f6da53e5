package mcp

import (
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// A hosted task that finishes tells the server so: the client sends
// notifications/tasks/status with the task's terminal status.
func TestHostedTaskNotifiesItsStatus(t *testing.T) {
	asked := make(chan *Question, 1)
	cs := NewClientSide(ClientSideOptions{Features: ClientFeatures{Sampling: true, Tasks: true},
		Ask: func(q *Question) { asked <- q }, Clock: clocktest.New(clocktest.Async())})
	a, b := transporttest.Pipe()
	cfg := session.Config{}
	cs.Install(&cfg)
	client := session.New(a, cfg)
	statuses := make(chan json.RawMessage, 4)
	server := session.New(b, session.Config{Notifications: map[string]session.NotificationHandler{
		"notifications/tasks/status": func(_ *session.Session, params json.RawMessage) { statuses <- params },
	}})
	t.Cleanup(func() { client.Close(); server.Close() })
	p := &clientPair{cs: cs, client: client, server: server}

	res, err := result(t, p.ask(t, "sampling/createMessage", `{"messages":[],"maxTokens":5,"task":{"ttl":60000}}`))
	if err != nil {
		t.Fatal(err)
	}
	id := taskID(t, res)
	q := recvWithin(t, asked, "the task's question")
	if err := q.Answer(SamplingText("hi", SamplingModel), nil); err != nil {
		t.Fatal(err)
	}
	raw := recvWithin(t, statuses, "notifications/tasks/status of task "+id)
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil || w.TaskID != id || w.Status != TaskCompleted {
		t.Fatalf("notifications/tasks/status %s %v; want task %s completed", raw, err, id)
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// After answering an extension task's inputs, FollowTask polls again only
// once the server has answered the tasks/update: no tasks/get goes out
// while the update is still in flight.
func TestExtensionTaskPollsAfterTheUpdateIsAnswered(t *testing.T) {
	var gets atomic.Int32 // tasks/get answered
	updating, release := make(chan struct{}, 1), make(chan struct{})
	ask := `{"resultType":"complete","taskId":"x1","status":"input_required","pollIntervalMs":1000,"inputRequests":{"who":{"method":"elicitation/create",` +
		`"params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/call": func(context.Context, *session.Incoming) (any, error) {
			return json.RawMessage(`{"resultType":"task","taskId":"x1","status":"working","ttlMs":60000,"pollIntervalMs":1000}`), nil
		},
		"tasks/get": func(context.Context, *session.Incoming) (any, error) {
			if gets.Add(1) == 1 {
				return json.RawMessage(ask), nil
			}
			return json.RawMessage(`{"resultType":"complete","taskId":"x1","status":"completed","result":{"content":[]}}`), nil
		},
		"tasks/update": func(ctx context.Context, _ *session.Incoming) (any, error) {
			updating <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return json.RawMessage(`{"resultType":"complete"}`), nil
		},
	}})
	clk := clocktest.New()
	cli := session.New(a, session.Config{Clock: clk})
	cli.UseEra2026(session.Era2026Options{Capabilities: ClientFeatures{FollowTasks: true, ElicitForm: true}.Capabilities(session.Era2026Version)})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	cs := NewClientSide(ClientSideOptions{Features: ClientFeatures{ElicitForm: true, FollowTasks: true}, Ask: func(q *Question) {
		_ = q.Answer(ElicitResult(ElicitAccept, json.RawMessage(`{"name":"Ada"}`)), nil)
	}})
	ref := startExtTask(t, cli)
	sub := cli.Subscribe()
	defer sub.Close()
	done := make(chan session.RequestInfo, 1)
	go func() {
		info, _ := FollowTask(testContext(t), cli, ref, FollowOptions{Side: cs})
		done <- info
	}()
	// Move the clock to the first poll, then hold it: from then on a poll
	// can only come from the end of the round of answers.
	deadline := time.Now().Add(waitLimit)
	for gets.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for the first tasks/get", waitLimit)
		}
		clk.Advance(100 * time.Millisecond)
		time.Sleep(time.Millisecond)
	}
	recvWithin(t, updating, "tasks/update with the answer")
	time.Sleep(200 * time.Millisecond) // room for a wrong poll to go out
	// The server reads nothing while its update handler waits, so the
	// client's own record of what it sent is what tells.
	sent := 0
	for drained := false; !drained; {
		select {
		case e := <-sub.C:
			if r, ok := e.(session.RequestStarted); ok && r.Info.Method == "tasks/get" {
				sent++
			}
		default:
			drained = true
		}
	}
	if sent != 1 {
		t.Errorf("%d tasks/get sent before tasks/update was answered; want the first one only", sent)
	}
	close(release)
	info := recvWithin(t, done, "FollowTask to return once the task completed")
	if info.State != session.Completed {
		t.Errorf("state %v", info.State)
	}
}

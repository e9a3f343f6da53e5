package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/clock"
	"github.com/mcpoke/mcpoke/session"
)

// Task statuses (2025-11-25).
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// hostedPollInterval is the pollInterval mcpoke suggests for the tasks it
// hosts: an answer written by a person is not worth polling faster for.
const hostedPollInterval = time.Second

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// TaskChanged reports a task mcpoke hosts for the server changed status. Ref is
// the request that created it.
type TaskChanged struct {
	TaskID        string
	Ref           session.Ref
	Status        string
	StatusMessage string
	At            time.Time
}

// taskHost keeps the tasks mcpoke runs for the server: a task-augmented
// sampling or elicitation request is answered at once with its task, and
// the person's (or policy's) answer becomes the task's result.
type taskHost struct {
	clock  clock.Clock
	notify func(method string, params any)
	event  func(any)

	mu    sync.Mutex
	tasks map[string]*hostedTask
	order []string
	next  int
}

// hostedTask is one task. Fields after mu are guarded by taskHost.mu.
type hostedTask struct {
	id      string
	ref     session.Ref
	created time.Time
	ttl     *int64 // ms; nil: unlimited
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed at a terminal status
	expiry  clock.Timer

	status, message string
	updated         time.Time
	result          json.RawMessage
	err             error
}

// Causes a hosted task's question is withdrawn with.
var (
	errTaskCancelled = errors.New("the server cancelled the task (tasks/cancel)")
	errSessionEnded  = errors.New("the session ended")
)

func newTaskHost(c clock.Clock, notify func(string, any), event func(any)) *taskHost {
	return &taskHost{clock: c, notify: notify, event: event, tasks: map[string]*hostedTask{}}
}

// create starts a task for the question q of request in and returns its
// context, which ends when the task is cancelled, expires or the session
// ends.
func (h *taskHost) create(in *session.Incoming, q *Question, ttl *int64) (*hostedTask, context.Context) {
	ctx, cancel := context.WithCancelCause(context.Background())
	now := h.clock.Now()
	h.mu.Lock()
	h.next++
	t := &hostedTask{id: fmt.Sprintf("mcpoke-task-%d", h.next), ref: in.Ref(), created: now, ttl: ttl,
		cancel: cancel, done: make(chan struct{}), status: TaskWorking, message: "waiting for an answer", updated: now}
	h.tasks[t.id] = t
	h.order = append(h.order, t.id)
	if ttl != nil && *ttl > 0 {
		d := time.Duration(*ttl) * time.Millisecond
		t.expiry = h.clock.AfterFunc(d, func() { h.expire(t, d) })
	}
	h.mu.Unlock()
	q.TaskID = t.id
	go func() {
		select {
		case <-in.Session().Done():
			h.finish(t, TaskFailed, errSessionEnded.Error(), nil, errSessionEnded)
		case <-t.done:
		}
	}()
	h.changed(t)
	return t, ctx
}

// await waits for q's answer and makes it the task's result.
func (h *taskHost) await(t *hostedTask, q *Question) {
	res, err := q.wait()
	select {
	case <-t.done:
		return // cancelled or expired first: its answer is not kept
	default:
	}
	var rpcErr *session.RPCError
	switch {
	case err == nil:
		h.finish(t, TaskCompleted, "answered", res, nil)
	case errors.As(err, &rpcErr):
		h.finish(t, TaskFailed, rpcErr.Message, nil, rpcErr)
	default:
		h.finish(t, TaskFailed, err.Error(), nil, err)
	}
}

// finish moves t to a terminal status once; a later move is ignored (a
// cancelled task stays cancelled).
func (h *taskHost) finish(t *hostedTask, status, message string, result json.RawMessage, err error) bool {
	h.mu.Lock()
	select {
	case <-t.done:
		h.mu.Unlock()
		return false
	default:
	}
	t.status, t.message, t.result, t.err, t.updated = status, message, result, err, h.clock.Now()
	close(t.done) // the result stays until the ttl passes (expire)
	snap := t.wire()
	h.mu.Unlock()
	t.cancel(err)
	h.notify("notifications/tasks/status", snap)
	h.changed(t)
	return true
}

// expire drops t once its ttl passed, withdrawing its question if it
// still waits.
func (h *taskHost) expire(t *hostedTask, ttl time.Duration) {
	// Gone before its question is withdrawn: whoever sees the withdrawal
	// and asks for the task is told it no longer exists.
	h.mu.Lock()
	delete(h.tasks, t.id)
	h.mu.Unlock()
	why := fmt.Errorf("the task's ttl of %s passed", ttl)
	h.finish(t, TaskFailed, why.Error(), nil, why)
}

func (h *taskHost) changed(t *hostedTask) {
	h.mu.Lock()
	e := TaskChanged{TaskID: t.id, Ref: t.ref, Status: t.status, StatusMessage: t.message, At: t.updated}
	h.mu.Unlock()
	h.event(e)
}

// taskWire is a Task as the spec writes it.
type taskWire struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

// wire is t as the spec writes it. Callers hold taskHost.mu.
func (t *hostedTask) wire() taskWire {
	return taskWire{TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: t.created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano),
		TTL: t.ttl, PollInterval: hostedPollInterval.Milliseconds()}
}

// find returns the task params name, or -32602.
func (h *taskHost) find(params json.RawMessage) (*hostedTask, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.TaskID == "" {
		return nil, invalidParams("params need a taskId")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.tasks[p.TaskID]
	if t == nil {
		return nil, invalidParams("no task %q: mcpoke does not have it (or its ttl passed)", clip(p.TaskID, 80))
	}
	return t, nil
}

// get answers tasks/get.
func (h *taskHost) get(_ context.Context, in *session.Incoming) (any, error) {
	t, err := h.find(in.Params)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return t.wire(), nil
}

// list answers tasks/list, in one page.
func (h *taskHost) list(context.Context, *session.Incoming) (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []taskWire{}
	for _, id := range h.order {
		if t := h.tasks[id]; t != nil {
			out = append(out, t.wire())
		}
	}
	return struct {
		Tasks []taskWire `json:"tasks"`
	}{out}, nil
}

// cancel answers tasks/cancel: a task still working is cancelled and its
// question withdrawn; a finished one is refused with -32602, as the spec
// says.
func (h *taskHost) cancelTask(_ context.Context, in *session.Incoming) (any, error) {
	t, err := h.find(in.Params)
	if err != nil {
		return nil, err
	}
	if !h.finish(t, TaskCancelled, "cancelled by the server (tasks/cancel)", nil, errTaskCancelled) {
		h.mu.Lock()
		st := t.status
		h.mu.Unlock()
		return nil, invalidParams("task %s is already %s: it cannot be cancelled", t.id, st)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return t.wire(), nil
}

// result answers tasks/result: it waits for the task to finish, then
// gives what the request would have: its result (with the related-task
// _meta) or its error.
func (h *taskHost) result(ctx context.Context, in *session.Incoming) (any, error) {
	t, err := h.find(in.Params)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	h.mu.Lock()
	res, terr, st := t.result, t.err, t.status
	h.mu.Unlock()
	var rpcErr *session.RPCError
	switch {
	case st == TaskCompleted:
		return withRelatedTask(res, t.id), nil
	case errors.As(terr, &rpcErr):
		return nil, rpcErr
	}
	return nil, &session.RPCError{Code: session.CodeInternalError, Message: "task " + t.id + " " + st + ": " + fmt.Sprint(terr)}
}

// withRelatedTask adds _meta["io.modelcontextprotocol/related-task"] to a
// result object, as results of tasks/result carry.
func withRelatedTask(result json.RawMessage, taskID string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil || obj == nil {
		return result
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(m, &meta)
	}
	rel, _ := json.Marshal(map[string]string{"taskId": taskID})
	meta[relatedTaskKey] = rel
	obj["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(obj)
	if err != nil {
		return result
	}
	return b
}

package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The demo's side of MCP 2025-11-25 tasks: a tools/call with a task
// member answers at once with a CreateTaskResult and runs the tool in the
// background; tasks/get, tasks/result, tasks/list and tasks/cancel act on
// it, and every change of status is sent as notifications/tasks/status.
// Tasks belong to one session (one client), so listing them shows no
// other client's.

// Task timings the demo offers.
const (
	taskPollInterval = 500 * time.Millisecond
	taskDefaultTTL   = 5 * time.Minute
	taskMaxTTL       = time.Hour
)

// taskCapability is what the demo declares in initialize.
var taskCapability = map[string]any{
	"list": map[string]any{}, "cancel": map[string]any{},
	"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}},
}

// demoTask is one task of the store. state, result and err are guarded by
// the store's mu; ended is closed once the task is terminal.
type demoTask struct {
	// modern: created by the tasks extension (2026-07-28), which reads
	// and ends it its own way (tasks_modern.go).
	modern  bool
	state   session.TaskState
	result  any
	err     error
	ended   chan struct{}
	stop    context.CancelFunc
	expires *time.Timer
}

// taskStore holds the tasks of one session.
type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*demoTask
	order []string // creation order, for tasks/list
	// ctx ends with the session: every task's work stops then.
	ctx  context.Context
	stop context.CancelFunc
	s    *session.Session // set once the session exists
	// working are the tools/call in flight (see WorkingMeta).
	working working
}

func newTaskStore() *taskStore {
	ctx, stop := context.WithCancel(context.Background())
	return &taskStore{tasks: map[string]*demoTask{}, ctx: ctx, stop: stop}
}

// bind ties the store to its session: notifications go there, and the
// work of every task stops when it ends.
func (ts *taskStore) bind(s *session.Session) {
	ts.mu.Lock()
	ts.s = s
	ts.mu.Unlock()
	go func() {
		<-s.Done()
		ts.stop()
	}()
}

// taskOf is the task a tool's work runs for, if any: tools report their
// stage as the task's status message.
type taskKey struct{}

// setTaskMessage sets the status message of the task ctx runs for, and
// tells the client; a plain call has none and it does nothing.
func setTaskMessage(ctx context.Context, msg string) {
	if run, ok := ctx.Value(taskKey{}).(*taskRun); ok {
		run.store.update(run.id, session.TaskWorking, msg, nil, nil)
	}
}

type taskRun struct {
	store *taskStore
	id    string
}

// runAsTask answers a tools/call: as a task when its params ask for one
// and the tool allows it. A tool that requires a task and is called
// plainly gets -32601, as the spec asks of servers; so does a tool that
// forbids one and is asked for one. handled is false for a plain call.
func (srv *server) runAsTask(in *session.Incoming, t *tool, args json.RawMessage) (res any, err error, handled bool) {
	var p struct {
		Task *struct {
			TTL *float64 `json:"ttl"`
		} `json:"task"`
	}
	_ = json.Unmarshal(in.Params, &p)
	if meta := mcp.ReadRequestMeta(in.Params); meta.Version != "" {
		return srv.runAsExtensionTask(in, t, args, meta)
	}
	support := t.TaskSupport()
	switch {
	case p.Task == nil && support == mcp.TaskRequired:
		return nil, &session.RPCError{Code: session.CodeMethodNotFound,
			Message: t.Name + " must be called as a task (execution.taskSupport is required): add a task member to params"}, true
	case p.Task == nil:
		return nil, nil, false
	case support == mcp.TaskForbidden:
		return nil, &session.RPCError{Code: session.CodeMethodNotFound,
			Message: t.Name + " cannot be called as a task (execution.taskSupport is forbidden)"}, true
	}
	ttl := taskDefaultTTL
	if p.Task.TTL != nil && *p.Task.TTL > 0 {
		ttl = min(time.Duration(*p.Task.TTL*float64(time.Millisecond)), taskMaxTTL)
	}
	state := srv.tasks.create(in, ttl, false, func(ctx context.Context) (any, error) { return t.run(ctx, srv, in, args) })
	srv.log.Info("task created", "id", in.ID.String(), "tool", t.Name, "task", state.ID)
	return map[string]any{"task": state}, nil, true
}

// create starts work as a new task and returns its first state.
func (ts *taskStore) create(in *session.Incoming, ttl time.Duration, modern bool, work func(context.Context) (any, error)) session.TaskState {
	id := newTaskID()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	ttlMs, pollMs := float64(ttl.Milliseconds()), float64(taskPollInterval.Milliseconds())
	ctx, stop := context.WithCancel(ts.ctx)
	task := &demoTask{
		state: session.TaskState{ID: id, Status: session.TaskWorking, StatusMessage: "started",
			CreatedAt: now, LastUpdatedAt: now, TTL: &ttlMs, PollInterval: &pollMs},
		ended:  make(chan struct{}),
		stop:   stop,
		modern: modern,
	}
	ts.mu.Lock()
	ts.tasks[id] = task
	ts.order = append(ts.order, id)
	// After its ttl the task and its result are deleted, as the spec allows.
	task.expires = time.AfterFunc(ttl, func() { ts.remove(id) })
	first := task.state
	ts.mu.Unlock()
	// The work starts once the CreateTaskResult went out: its statuses
	// must not reach the client before the task they are about.
	in.AfterAnswer(func() { go ts.run(ctx, id, work) })
	return first
}

// run does a task's work and records how it ended.
func (ts *taskStore) run(ctx context.Context, id string, work func(context.Context) (any, error)) {
	res, err := work(context.WithValue(ctx, taskKey{}, &taskRun{store: ts, id: id}))
	if ctx.Err() != nil {
		return // cancelled: the task stays cancelled
	}
	status, msg := session.TaskCompleted, "done"
	if err != nil {
		status, msg = session.TaskFailed, err.Error()
	} else if r, ok := res.(toolResult); ok && r.IsError && !ts.isModern(id) {
		// The extension keeps a tool's own error completed, its result
		// saying so; 2025-11-25 tasks end failed.
		status, msg = session.TaskFailed, "the tool reported an error"
	}
	ts.update(id, status, msg, res, err)
}

// update moves a task to status, unless it is terminal already; a
// terminal status keeps the result. It tells the client.
func (ts *taskStore) update(id, status, msg string, res any, err error) bool {
	ts.mu.Lock()
	task := ts.tasks[id]
	if task == nil || session.TaskStatusTerminal(task.state.Status) {
		ts.mu.Unlock()
		return false
	}
	task.state.Status, task.state.StatusMessage = status, msg
	task.state.LastUpdatedAt = time.Now().UTC().Format(time.RFC3339Nano)
	if session.TaskStatusTerminal(status) {
		task.result, task.err = res, err
		close(task.ended)
		task.stop()
	}
	state, s := task.state, ts.s
	ts.mu.Unlock()
	if s != nil && !task.modern { // the extension's statuses are polled
		_ = s.Notify("notifications/tasks/status", state)
	}
	return true
}

func (ts *taskStore) remove(id string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if task := ts.tasks[id]; task != nil {
		task.stop()
		delete(ts.tasks, id)
	}
	for i, o := range ts.order {
		if o == id {
			ts.order = append(ts.order[:i], ts.order[i+1:]...)
			break
		}
	}
}

// find returns the task params name, or -32602 as the spec asks for an
// unknown one.
func (ts *taskStore) find(params json.RawMessage) (string, *demoTask, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.TaskID == "" {
		return "", nil, invalidParams("params must be an object with a taskId")
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	task := ts.tasks[p.TaskID]
	if task == nil {
		return "", nil, invalidParams("Failed to retrieve task: Task not found: %s", p.TaskID)
	}
	return p.TaskID, task, nil
}

// state is task's state as it is now.
func (ts *taskStore) state(task *demoTask) session.TaskState {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return task.state
}

// getTask answers tasks/get.
func (ts *taskStore) getTask(_ context.Context, in *session.Incoming) (any, error) {
	_, task, err := ts.find(in.Params)
	if err != nil {
		return nil, err
	}
	if modernRequest(in) {
		return ts.getExtensionTask(task)
	}
	return ts.state(task), nil
}

// taskResult answers tasks/result: it waits for the task to end, then
// answers what the tools/call would have, with the related-task _meta.
func (ts *taskStore) taskResult(ctx context.Context, in *session.Incoming) (any, error) {
	if modernRequest(in) {
		return nil, notInExtension("tasks/result")
	}
	id, task, err := ts.find(in.Params)
	if err != nil {
		return nil, err
	}
	select {
	case <-task.ended:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	switch {
	case task.state.Status == session.TaskCancelled:
		return nil, &session.RPCError{Code: session.CodeInternalError, Message: "task " + id + " was cancelled: it has no result"}
	case task.err != nil:
		return nil, task.err
	}
	raw, err := json.Marshal(task.result)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	obj["_meta"] = map[string]any{"io.modelcontextprotocol/related-task": map[string]string{"taskId": id}}
	return obj, nil
}

// cancelTask answers tasks/cancel: a running task moves to cancelled
// before the answer and its work stops; a terminal one is refused with
// -32602, as the spec asks. In a modern request it is the extension's
// (cancelExtensionTask).
func (srv *server) cancelTask(_ context.Context, in *session.Incoming) (any, error) {
	ts := srv.tasks
	id, task, err := ts.find(in.Params)
	if err != nil {
		return nil, err
	}
	if modernRequest(in) {
		return srv.cancelExtensionTask(in, id)
	}
	srv.log.Info("task cancel received", "task", id, "signal", "tasks/cancel (2025-11-25)", "id", in.ID.String())
	if !ts.update(id, session.TaskCancelled, "cancelled by tasks/cancel", nil, nil) {
		return nil, invalidParams("Cannot cancel task: already in terminal status '%s'", ts.state(task).Status)
	}
	return ts.state(task), nil
}

// listTasks answers tasks/list; the demo's list fits one page.
func (ts *taskStore) listTasks(_ context.Context, in *session.Incoming) (any, error) {
	if modernRequest(in) {
		return nil, notInExtension("tasks/list")
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	list := make([]session.TaskState, 0, len(ts.order))
	for _, id := range ts.order {
		list = append(list, ts.tasks[id].state)
	}
	return map[string]any{"tasks": list}, nil
}

// newTaskID is a random id: the demo binds tasks to a session, but a
// guessable id would still be a bad example.
func newTaskID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b[:])
}

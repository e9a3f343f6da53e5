package session

import (
	"context"
	"fmt"
)

// GetTask sends tasks/get for the task row the handle names. Its answer
// updates the row: a new status, or, for an error, the end of a task the
// server no longer knows. After the row's cancel it is late. opts bound
// the tasks/get itself; it carries no progress token.
func (h Request) GetTask(ctx context.Context, opts CallOptions) (*Call, error) {
	return h.taskRequest(ctx, "tasks/get", nil, opts)
}

// FetchTaskResult sends tasks/result for the task row the handle names.
// The server answers once the task ended, with what the request would
// have answered: that answer ends the row completed or failed. While the
// task waits for input (input_required), the server sends its own
// requests before it answers.
func (h Request) FetchTaskResult(ctx context.Context, opts CallOptions) (*Call, error) {
	return h.taskRequest(ctx, "tasks/result", nil, opts)
}

// taskRequest sends method for the task row the handle names, with
// params taskId and extra.
func (h Request) taskRequest(ctx context.Context, method string, extra map[string]any, opts CallOptions) (*Call, error) {
	s := h.s
	s.mu.Lock()
	r := s.table.find(h.ref)
	if r == nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrUnknownRequest, h.ref.ID)
	}
	if r.info.TaskID == "" {
		s.mu.Unlock()
		return nil, fmt.Errorf("%s: request %s %w", method, h.ref.ID, ErrNotATask)
	}
	params := map[string]any{"taskId": r.info.TaskID}
	for k, v := range extra {
		params[k] = v
	}
	s.mu.Unlock()
	opts.NoProgressToken = true
	opts.forTask = r
	return s.Call(ctx, method, params, opts)
}

// Watch returns a snapshot of the request and a channel that is closed
// at its next change: a new state, a task status, a task's cancel
// answered, a task created. For a request already final the channel is
// closed: what comes after its end (late traffic) is not watched. ok is
// false when the table does not keep the request.
func (h Request) Watch() (info RequestInfo, changed <-chan struct{}, ok bool) {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.table.find(h.ref)
	if r == nil {
		return RequestInfo{}, nil, false
	}
	if r.info.State.Final() {
		return r.snapshot(), closedChan, true // watchers wait for the end, which this is
	}
	ch, ok := s.watchers[r]
	if !ok {
		ch = make(chan struct{})
		if s.watchers == nil {
			s.watchers = map[*request]chan struct{}{}
		}
		s.watchers[r] = ch
	}
	return r.snapshot(), ch, true
}

// closedChan is what Watch returns for a row that cannot change.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Wait waits until the request is final, or ctx ends, and returns its
// snapshot. Ending ctx does not cancel it.
func (h Request) Wait(ctx context.Context) (RequestInfo, error) {
	for {
		info, changed, ok := h.Watch()
		switch {
		case !ok:
			return info, fmt.Errorf("%w: %s", ErrUnknownRequest, h.ref.ID)
		case info.State.Final():
			return info, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return info, ctx.Err()
		}
	}
}

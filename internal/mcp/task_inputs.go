package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// An extension task (2026-07-28) that needs input says so in tasks/get:
// status input_required with inputRequests. They are answered like a
// multi round-trip request's (AnswerInputs: the same screens and
// policies), and the answers go with tasks/update. Each key is asked
// once: the spec makes keys unique over a task's life, and a poll that
// shows a key again before its answer arrived is the same question.

// ReadTaskInputs reads the inputRequests of an extension task.
func ReadTaskInputs(raw json.RawMessage) (InputRequired, error) {
	var reqs map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var ir InputRequired
	if err := json.Unmarshal(raw, &reqs); err != nil {
		return ir, errors.New("the task's inputRequests are not an object of requests")
	}
	for k, v := range reqs {
		ir.Requests = append(ir.Requests, InputRequest{Key: k, Method: v.Method, Params: v.Params})
	}
	sort.Slice(ir.Requests, func(i, j int) bool { return ir.Requests[i].Key < ir.Requests[j].Key })
	return ir, nil
}

// taskInputs answers the inputRequests of one task row, a round at a
// time, off FollowTask's loop: done is signalled when a round's answers
// were sent (or none could be).
type taskInputs struct {
	side  *ClientSide
	s     *session.Session
	ref   session.Ref
	seen  map[string]bool
	round int
	busy  bool
	done  chan struct{}
	ctx   context.Context
	stop  context.CancelFunc
}

func newTaskInputs(side *ClientSide, s *session.Session, ref session.Ref) *taskInputs {
	ctx, stop := context.WithCancel(context.Background())
	return &taskInputs{side: side, s: s, ref: ref, seen: map[string]bool{}, done: make(chan struct{}, 1), ctx: ctx, stop: stop}
}

// answer asks the questions of info's inputRequests not asked before,
// unless a round is open; a row no longer pending withdraws them.
func (t *taskInputs) answer(info session.RequestInfo, timeout time.Duration) {
	if info.State != session.Pending {
		t.stop()
		return
	}
	if t.busy || t.side == nil || info.Task.State.Status != session.TaskInputRequired || len(info.Task.InputRequests) == 0 {
		return
	}
	ir, err := ReadTaskInputs(info.Task.InputRequests)
	if err != nil {
		return
	}
	fresh := ir.Requests[:0:0]
	for _, r := range ir.Requests {
		if !t.seen[r.Key] {
			t.seen[r.Key] = true
			fresh = append(fresh, r)
		}
	}
	if len(fresh) == 0 {
		return
	}
	t.busy = true
	t.round++
	go func(round int, ir InputRequired) {
		defer func() { t.done <- struct{}{} }()
		responses, _, err := t.side.AnswerInputs(t.ctx, t.s, t.ref, round, ir)
		if err != nil || len(responses) == 0 {
			return
		}
		c, err := t.s.Request(t.ref).UpdateTask(t.ctx, responses, session.CallOptions{Timeout: timeout})
		if err == nil {
			<-c.Done()
		}
	}(t.round, InputRequired{Requests: fresh})
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/clock"
	"github.com/mcpoke/mcpoke/session"
)

// ClientSide answers the requests a server sends mcpoke: roots/list,
// sampling/createMessage and elicitation/create, and the tasks mcpoke
// hosts for task-augmented ones. It answers only what its Features
// declare; the session answers anything else with -32601. One ClientSide
// serves one session: Install it in the session's Config.
type ClientSide struct {
	features ClientFeatures
	roots    *RootList
	ask      Asker
	clock    clock.Clock
	event    func(any)
	tasks    *taskHost

	mu sync.Mutex
	// session is set by the first request, for notifications.
	session *session.Session
	// elicitations are the url mode elicitations asked, by id, until
	// notifications/elicitation/complete names them.
	elicitations map[string]*urlElicitation
}

// urlElicitation is one url mode elicitation the server asked.
type urlElicitation struct {
	ref       session.Ref
	completed bool
}

// ClientSideOptions configure a ClientSide.
type ClientSideOptions struct {
	Features ClientFeatures
	// Roots answers roots/list when Features.Roots; nil is an empty list.
	Roots *RootList
	// Ask hands out sampling and elicitation questions. Required when
	// those are declared.
	Ask Asker
	// Clock times hosted tasks; default the real one.
	Clock clock.Clock
	// Event, if set, receives what happens besides questions:
	// ElicitationComplete and TaskChanged values. It must not block.
	Event func(any)
}

// ElicitationComplete reports notifications/elicitation/complete arrived. Known
// says it named a url mode elicitation the server asked and had not
// completed; otherwise it was ignored, as the spec says.
type ElicitationComplete struct {
	ElicitationID string
	Ref           session.Ref // of the elicitation/create, when Known
	Known         bool
	At            time.Time
}

// NewClientSide returns the answering side for one session.
func NewClientSide(o ClientSideOptions) *ClientSide {
	if o.Roots == nil {
		o.Roots = NewRootList()
	}
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.Event == nil {
		o.Event = func(any) {}
	}
	if o.Ask == nil {
		o.Ask = func(q *Question) { _ = q.Answer(nil, invalidParams("%s: nobody is there to answer", q.Method)) }
	}
	c := &ClientSide{features: o.Features, roots: o.Roots, ask: o.Ask, clock: o.Clock, event: o.Event,
		elicitations: map[string]*urlElicitation{}}
	c.tasks = newTaskHost(o.Clock, c.notify, o.Event)
	return c
}

// Features are what this side answers.
func (c *ClientSide) Features() ClientFeatures { return c.features }

// Roots is the list roots/list answers with.
func (c *ClientSide) Roots() *RootList { return c.roots }

// Capabilities is what initialize declares for protocol version.
func (c *ClientSide) Capabilities(version string) json.RawMessage {
	return c.features.Capabilities(version)
}

// Install registers the handlers of the declared features in cfg,
// keeping any it has for other methods.
func (c *ClientSide) Install(cfg *session.Config) {
	if cfg.Handlers == nil {
		cfg.Handlers = map[string]session.Handler{}
	}
	if cfg.Notifications == nil {
		cfg.Notifications = map[string]session.NotificationHandler{}
	}
	f := c.features
	if f.Roots {
		cfg.Handlers["roots/list"] = c.roots.answerRootsList
	}
	if f.Sampling {
		cfg.Handlers["sampling/createMessage"] = c.sampling
	}
	if f.Elicitation() {
		cfg.Handlers["elicitation/create"] = c.elicitation
	}
	if f.ElicitURL {
		cfg.Notifications["notifications/elicitation/complete"] = c.elicitationComplete
	}
	if f.Tasks && (f.Sampling || f.Elicitation()) {
		cfg.Handlers["tasks/get"] = c.tasks.get
		cfg.Handlers["tasks/result"] = c.tasks.result
		cfg.Handlers["tasks/list"] = c.tasks.list
		cfg.Handlers["tasks/cancel"] = c.tasks.cancelTask
	}
}

// AddRoot adds a root and, when the list changed, tells the server
// (notifications/roots/list_changed). It reports whether it changed.
func (c *ClientSide) AddRoot(s *session.Session, r Root) (bool, error) {
	if !c.features.Roots {
		return false, errors.New("mcpoke did not declare roots to this server")
	}
	if !c.roots.Add(r) {
		return false, nil
	}
	return true, NotifyRootsChanged(s)
}

func (c *ClientSide) sampling(ctx context.Context, in *session.Incoming) (any, error) {
	req, err := ParseSamplingRequest(in.Params)
	if err != nil {
		return nil, err
	}
	return c.run(ctx, in, &Question{Sampling: &req}, req.Task)
}

func (c *ClientSide) elicitation(ctx context.Context, in *session.Incoming) (any, error) {
	req, err := ParseElicitRequest(in.Params, c.features)
	if err != nil {
		return nil, err
	}
	if req.Mode == ElicitModeURL {
		c.mu.Lock()
		c.elicitations[req.ElicitationID] = &urlElicitation{ref: in.Ref()}
		c.mu.Unlock()
	}
	return c.run(ctx, in, &Question{Elicit: &req}, req.Task)
}

// run asks q and waits for its answer; a task-augmented request is
// answered at once with its task instead, the answer becoming the task's
// result.
func (c *ClientSide) run(ctx context.Context, in *session.Incoming, q *Question, task *RequestedTask) (any, error) {
	c.mu.Lock()
	c.session = in.Session()
	c.mu.Unlock()
	q.Ref, q.Method, q.Asked = in.Ref(), in.Method, c.clock.Now()
	q.reply = make(chan answer, 1)
	if task != nil && c.features.Tasks {
		t, tctx := c.tasks.create(in, q, task.TTL)
		q.ctx = tctx
		q.why = func() string { return context.Cause(tctx).Error() }
		go c.tasks.await(t, q)
		// Asked once the CreateTaskResult is written: a policy answers at
		// once, and the task's status must not reach the server before
		// the task itself (nor the result say it had already ended).
		in.AfterAnswer(func() { c.ask(q) })
		c.tasks.mu.Lock()
		defer c.tasks.mu.Unlock()
		return struct {
			Task taskWire `json:"task"`
		}{t.wire()}, nil
	}
	q.ctx = ctx
	q.why = func() string { return withdrawnWhy(in) }
	c.ask(q)
	return q.wait()
}

// withdrawnWhy says why the server's request in ended before its answer.
func withdrawnWhy(in *session.Incoming) string {
	info, _ := in.Session().Request(in.Ref()).Info()
	switch {
	case info.CancelReason != "":
		return "cancelled by the server: " + info.CancelReason
	case info.State == session.Cancelled && !info.CancelAt.IsZero():
		return "cancelled by the server, without a reason"
	case info.State == session.Completed || info.State == session.Failed:
		return "it was already answered"
	}
	return "the session ended"
}

// elicitationComplete handles notifications/elicitation/complete: the
// out-of-band interaction of a url mode elicitation is done. An unknown or
// already completed id is ignored, as the spec says.
func (c *ClientSide) elicitationComplete(_ *session.Session, params json.RawMessage) {
	var p struct {
		ElicitationID string `json:"elicitationId"`
	}
	_ = json.Unmarshal(params, &p)
	e := ElicitationComplete{ElicitationID: p.ElicitationID, At: c.clock.Now()}
	c.mu.Lock()
	if u := c.elicitations[p.ElicitationID]; u != nil && !u.completed {
		u.completed = true
		e.Known, e.Ref = true, u.ref
	}
	c.mu.Unlock()
	c.event(e)
}

// notify sends a notification on the session, once there is one.
func (c *ClientSide) notify(method string, params any) {
	c.mu.Lock()
	s := c.session
	c.mu.Unlock()
	if s != nil {
		_ = s.Notify(method, params)
	}
}

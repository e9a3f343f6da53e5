package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/transport"
)

// CallOptions tune one outgoing request.
type CallOptions struct {
	// Timeout cancels the request, with reason "timeout after D", when no
	// response came within it. Zero means none.
	Timeout time.Duration
	// ResetTimeoutOnProgress restarts Timeout at each progress
	// notification; MaxTimeout still bounds the whole request.
	ResetTimeoutOnProgress bool
	// MaxTimeout is the hard limit on the whole request, whatever progress
	// says. Zero means 10 × Timeout when the timeout resets on progress,
	// else none; negative means none.
	MaxTimeout time.Duration
	// NoProgressToken leaves _meta.progressToken out of this request.
	NoProgressToken bool
	// QuietTimeout: when Timeout expires the request ends timed out but
	// no cancellation goes on the wire, as for initialize. For the era
	// probe (server/discover): a server that does not answer it is taken
	// for a 2025 one, to which the request never existed.
	QuietTimeout bool
	// HoldTimeout, when set, is asked each time Timeout comes due: while
	// it says true (a login waiting for the person), the timeout starts
	// again instead of expiring. MaxTimeout is not held.
	HoldTimeout func() bool
	// ParamHeaders are the Mcp-Param headers of a modern tools/call over
	// Streamable HTTP (mcp.ParamHeaders), by name, values not encoded;
	// other transports ignore them.
	ParamHeaders map[string]string
	// LogLevel asks a 2026-07-28 server for notifications/message about this
	// request from this level up (_meta io.modelcontextprotocol/logLevel);
	// without it such a server sends none. Ignored by 2025 sessions,
	// whose level is set with logging/setLevel.
	LogLevel string
	// Housekeeping marks a request the client sends on its own, such as a
	// periodic health ping: RequestInfo.Housekeeping says so (a UI may
	// leave it out of its list), and CancelAll leaves it alone.
	Housekeeping bool

	// forTask is the task row a tasks/get, tasks/result or tasks/cancel
	// is sent for (see Request.GetTask); its answer is applied there.
	forTask *request
	// Round links a multi round-trip retry to its original request.
	Round Round
}

// Call is an outgoing request in flight: an async handle.
type Call struct {
	id   ID
	seq  uint64
	done chan struct{}
	// sentAt is when a task operation (CallOptions.forTask) was written
	// (see sendStamped); set before Call returns. Zero for other calls,
	// which spares them a clock reading.
	sentAt time.Time

	// Set once, under Session.mu, before done is closed; result may be
	// replaced after, by Session.Shed.
	result atomic.Pointer[json.RawMessage]
	res    json.RawMessage // what result first points to
	err    error
	state  State
}

// ID is the request's wire id.
func (c *Call) ID() ID { return c.id }

// Seq is the request's sequence number in the session's events.
func (c *Call) Seq() uint64 { return c.seq }

// Ref names the request as events do; Session.Request(c.Ref()) is its
// handle for cancelling and reading it.
func (c *Call) Ref() Ref { return Ref{Seq: c.seq, ID: c.id} }

// Done is closed when the request reached a final state.
func (c *Call) Done() <-chan struct{} { return c.done }

// Result returns the outcome once Done is closed: the result, or an error
// that is an *RPCError, wraps ErrCancelled or ErrTimedOut, or says why the
// connection failed.
func (c *Call) Result() (json.RawMessage, State, error) {
	<-c.done
	return c.resultNow(), c.state, c.err
}

// Wait waits for the final state or ctx, whichever comes first. Ending ctx
// here does not cancel the request.
func (c *Call) Wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case <-c.done:
		return c.resultNow(), c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// resultNow is the result as kept now: nil before done, or when none.
func (c *Call) resultNow() json.RawMessage {
	if p := c.result.Load(); p != nil {
		return *p
	}
	return nil
}

func (c *Call) resolve(r *request) {
	c.state = r.info.State
	switch r.info.State {
	case Completed:
		c.res = r.info.Result // in the Call: no allocation of its own
		c.result.Store(&c.res)
	case Failed:
		if r.info.Error != nil {
			c.err = r.info.Error
		} else {
			c.err = errors.New(r.info.m().Failure)
		}
	case Cancelled:
		c.err = fmt.Errorf("%w: %s", ErrCancelled, r.info.m().CancelReason)
	case TimedOut:
		c.err = fmt.Errorf("%w: %s", ErrTimedOut, r.info.m().CancelReason)
	}
	close(c.done)
}

// outgoingCall is a request of ours and its Call, in one allocation.
type outgoingCall struct {
	request
	call Call
}

// Call sends a request and returns its handle once the frame was written.
// params may be nil, json.RawMessage, or anything encoding/json takes.
// When ctx ends while the request is in flight, the request is cancelled
// with ctx's cause as the reason.
func (s *Session) Call(ctx context.Context, method string, params any, opts CallOptions) (*Call, error) {
	return s.call(ctx, method, params, opts, true)
}

// call is Call; watch says whether ctx is watched for the request's
// life. Do watches it itself while it waits, which spares each call a
// context.AfterFunc.
func (s *Session) call(ctx context.Context, method string, params any, opts CallOptions, watch bool) (*Call, error) {
	p, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSessionClosed
	}
	if err := s.refuseInEra(method); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	id := s.newID()
	// Read before _meta goes in front of it: the name is then the first
	// member, not one behind the client's _meta.
	tool := toolName(method, p)
	var token ID
	var members []byte
	if s.era2026 != nil {
		members = make([]byte, 0, len(s.era2026.members)+len(id.raw)+64)
	}
	wantsProgress := !s.cfg.NoProgressTokens && !opts.NoProgressToken && method != "initialize"
	if wantsProgress {
		members = append(members, `"progressToken":`...)
		members = append(members, id.raw...)
	}
	if s.era2026 != nil {
		members = s.era2026.appendMembers(members, opts.LogLevel)
	}
	var trace *TraceParent
	if s.cfg.Trace {
		tp := NewTraceParent()
		trace = &tp
		members = appendTraceParent(members, trace)
	}
	if len(members) > 0 {
		if p, err = withMeta(p, members); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if t := bytes.TrimSpace(p); wantsProgress && len(t) > 0 && t[0] == '{' {
			token = id // positional params cannot carry one
		}
	}
	frame := appendRequest(make([]byte, 0, len(p)+len(method)+len(id.raw)+48), id, method, p)
	var mirror *transport.Mirror
	if s.era2026 != nil {
		mirror = s.era2026.mirror(method, tool, p, opts.ParamHeaders)
	}
	rc := &outgoingCall{request: request{info: rowInfo{ID: id, Method: method, Tool: tool,
		Params: p, TraceParent: trace, State: Pending, Started: s.clock.Now(), Housekeeping: opts.Housekeeping}, token: token}}
	r := &rc.request
	if opts.Round != (Round{}) {
		r.info.w().Round = opts.Round
	}
	switch {
	case opts.forTask != nil:
		r.task = &taskLinks{forTask: opts.forTask}
		r.info.Task = &TaskInfo{Parent: opts.forTask.info.Ref()}
	case bytes.Contains(p, []byte(`"task"`)) && taskAugmented(p):
		r.task = &taskLinks{augmented: true}
	}
	s.table.add(r)
	rc.call = Call{id: id, seq: r.info.Seq, done: make(chan struct{})}
	r.call = &rc.call
	s.startTimers(r, opts) // first, so that RequestStarted shows the timeouts
	if len(s.subs) > 0 {
		s.emit(RequestStarted{Info: r.snapshot()})
	}
	s.mu.Unlock()

	out := transport.Outgoing{Frame: frame, ID: id.raw, Method: method, Mirror: mirror}
	var sendErr error
	if opts.forTask != nil {
		// Only a task's operations are timed from their write (cancelTask).
		r.call.sentAt, sendErr = s.sendStamped(out)
	} else {
		sendErr = s.send(out)
	}

	s.mu.Lock()
	r.written = true
	queued := r.cancelQueued && sendErr == nil
	if sendErr != nil {
		switch r.info.State {
		case Pending:
			r.info.w().Failure = sendErr.Error()
			s.setState(r, Failed, r.info.m().Failure)
		case Cancelling: // cancelled while its write failed: nothing to send
			s.setState(r, Cancelled, r.info.m().CancelReason)
		}
	}
	if watch && !queued && r.info.State == Pending && ctx.Done() != nil {
		ref := r.info.Ref()
		r.stopCtxWatch = context.AfterFunc(ctx, func() {
			_ = s.Request(ref).Cancel("context: " + context.Cause(ctx).Error())
		})
	}
	s.mu.Unlock()
	if queued {
		s.sendCancels([]*request{r})
	}
	if sendErr != nil {
		return r.call, sendErr
	}
	return r.call, nil
}

// Do sends a request and waits for its outcome, or until ctx ends: then
// the request is cancelled (unless it is initialize, which cannot be) and
// Do returns ctx's error at once, without waiting for the settle window.
func (s *Session) Do(ctx context.Context, method string, params any, opts CallOptions) (json.RawMessage, error) {
	c, err := s.call(ctx, method, params, opts, false)
	if err != nil {
		return nil, err
	}
	select {
	case <-c.done:
		return c.resultNow(), c.err
	case <-ctx.Done():
		_ = s.Request(c.Ref()).Cancel("context: " + context.Cause(ctx).Error())
		return nil, ctx.Err()
	}
}

// startTimers arms the request's timeouts, when it has any: a request
// without them gets no timer record at all. Callers hold s.mu.
func (s *Session) startTimers(r *request, opts CallOptions) {
	r.resetOnProgress = opts.ResetTimeoutOnProgress
	r.info.ResetsOnProgress = opts.ResetTimeoutOnProgress
	r.quietTimeout = opts.QuietTimeout || r.info.Method == "initialize"
	max := opts.MaxTimeout
	if max == 0 && opts.ResetTimeoutOnProgress {
		max = 10 * opts.Timeout
	}
	if opts.Timeout <= 0 && max <= 0 {
		return
	}
	r.timers = &requestTimers{holdTimeout: opts.HoldTimeout}
	s.armTimeout(r, opts.Timeout)
	if max > 0 {
		r.timers.maxTimeout = max
		r.timers.maxTimer = s.deadlines.AfterFunc(max, func() {
			s.expire(r, fmt.Sprintf("timeout after %s (maximum)", max))
		})
	}
}

// armTimeout (re)starts r's timeout at d from now; 0 means none.
// Callers hold s.mu.
func (s *Session) armTimeout(r *request, d time.Duration) {
	if r.timers == nil {
		if d <= 0 {
			return
		}
		r.timers = &requestTimers{}
	}
	t := r.timers
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	t.timeout = d
	if d <= 0 {
		return
	}
	t.timer = s.deadlines.AfterFunc(d, func() {
		if t.holdTimeout != nil && t.holdTimeout() {
			s.mu.Lock()
			if r.info.State == Pending {
				s.armTimeout(r, d)
			}
			s.mu.Unlock()
			return
		}
		s.expire(r, fmt.Sprintf("timeout after %s", d))
	})
}

// maxTimeout is r's hard limit, 0 when none.
func (r *request) maxTimeout() time.Duration {
	if r.timers == nil {
		return 0
	}
	return r.timers.maxTimeout
}

// timeout is r's current timeout, 0 when none.
func (r *request) timeout() time.Duration {
	if r.timers == nil {
		return 0
	}
	return r.timers.timeout
}

// toolName returns params.name for tools/call, for display.
func toolName(method string, params json.RawMessage) string {
	if method != "tools/call" || len(params) == 0 {
		return ""
	}
	return stringMember(params, "name")
}

// newID is the next request id: counted from 1, or with
// Config.UnpredictableIDs drawn at random from the runtime's
// ChaCha8-seeded source, never one the table holds. Called with s.mu held.
func (s *Session) newID() ID {
	if !s.cfg.UnpredictableIDs {
		id := IntID(s.nextID)
		s.nextID++
		return id
	}
	for {
		// Past 2^20, so that it is never one a counting peer would guess
		// first; below 2^53, so that a peer reading numbers as floats
		// keeps it exact.
		id := IntID(1<<20 + rand.Int64N(1<<53-1<<20))
		if s.table.outgoing(id.raw) == nil {
			return id
		}
	}
}

// Package session is a symmetric JSON-RPC 2.0 peer with the rules of MCP:
// the request table, cancellation, progress, timeouts and lifecycle. The
// mcpoke client and the built-in demo server are both a Session.
//
// # Concurrency
//
// A Session is safe for use from many goroutines. All request state (the
// request table and every row's RequestInfo) lives behind one mutex,
// Session.mu; events are decided under it, so every Subscription sees
// them in the order the state changed. No method blocks on a slow event
// reader.
//
// Lock order: the reader's turn (inbound.mu, which the transport's own
// readers take on the direct path: transport.DirectReceiver), then
// Session.mu, then a Subscription's own lock (push), then the clock's
// (AfterFunc, Stop, Reset). Nothing takes Session.mu while holding
// one of the others: timer callbacks and context.AfterFunc callbacks run
// with no lock held and take Session.mu themselves.
//
// Never write to the transport while holding Session.mu: Send, Close and
// CloseRequestStream may block on a slow peer, and the reader needs
// Session.mu to take the frames that would unblock it. Decide under the
// lock, release it, then write (see Call and sendCancels).
//
// # Time
//
// Config.Clock is the one source of time: Started, Ended, CancelAt,
// CancelSentAt, timeouts, settle windows and the delay of late traffic.
// Give the transport's tap the same clock (transport.NewTap): the session
// then takes the arrival of inbound traffic (transport.Message.At) and the
// moment a cancellation was written (transport.Sender) from the
// tap's own readings, so that a late delay on screen is exactly the gap
// between the two lines of the wire log and the transcript.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/clock"
	"github.com/mcpoke/mcpoke/transport"
)

// Config tunes a Session. The zero value works.
type Config struct {
	// Handlers answer incoming requests by method. ping is answered
	// unless overridden; any other unknown method gets -32601.
	Handlers map[string]Handler
	// Immediate, for a method, is tried before its Handler on the
	// goroutine that read the request (the session's reader, or the
	// transport's on its direct path): a request it answers (ok) is answered
	// there and then, without a goroutine or a context. It must not block:
	// the next frame waits for it. It declines (ok false) what takes time,
	// which then goes to Handlers.
	Immediate map[string]ImmediateHandler
	// Notifications receive incoming notifications by method, besides
	// those the session handles itself (cancelled, progress).
	Notifications map[string]NotificationHandler
	// SettleWindow is how long a cancelled request stays cancelling after
	// the cancel was delivered, watching what the peer does. Default 1s;
	// negative means none.
	SettleWindow time.Duration
	// NoProgressTokens stops adding _meta.progressToken to requests.
	NoProgressTokens bool
	// UnpredictableIDs draws each request id at random (an integer below
	// 2^53, unused in this session) instead of counting from 1, so that a
	// peer cannot answer a request before it has read it by guessing its
	// id (mcpoke check grades on what answers which request).
	UnpredictableIDs bool
	// MaxFinished is how many finished requests the table keeps; the
	// oldest are dropped past it. Default 10,000.
	MaxFinished int
	// Logger receives cancellation reasons, sent and received, late
	// traffic and protocol oddities. Default: discard.
	Logger *slog.Logger
	// Clock is the source of time; default the real one. Tests pass
	// internal/clocktest's fake.
	Clock clock.Clock
	// DrainOnEOF is how long requests still being handled may go on,
	// and answer, after the peer's input ended (io.EOF): a client that
	// pipes requests and closes stdin still gets its answers. Zero: none.
	DrainOnEOF time.Duration
	// CancelMode says how requests are cancelled; default notify.
	CancelMode CancelMode
	// Trace puts a fresh W3C traceparent in the _meta of every request
	// sent (RequestInfo.TraceParent), in both eras: the server can then
	// continue the trace, and its spans be matched to the request.
	Trace bool
}

// Handler answers one incoming request. It runs in its own goroutine, and
// ctx is cancelled when the peer cancels the request or the session ends;
// after a cancel no response is sent, whatever the handler returns. A
// *RPCError result is sent as that error; any other error as -32603.
type Handler func(ctx context.Context, req *Incoming) (any, error)

// ImmediateHandler answers an incoming request at once, or declines it
// (ok false) for the method's Handler. See Config.Immediate.
type ImmediateHandler func(req *Incoming) (result any, err error, ok bool)

// NotificationHandler receives one incoming notification. It runs on the
// goroutine that read it (the session's reader, or the transport's on its
// direct path), so it must return quickly.
type NotificationHandler func(s *Session, params json.RawMessage)

// Errors the session returns. Match them with errors.Is.
var (
	// ErrSessionClosed: the session ended; nothing more can be sent.
	ErrSessionClosed = errors.New("session closed")
	// ErrCancelled is the result of a request we cancelled.
	ErrCancelled = errors.New("request cancelled")
	// ErrTimedOut is the result of a request whose timeout expired.
	ErrTimedOut = errors.New("request timed out")
	// ErrUnknownRequest: the handle names no request the table keeps.
	ErrUnknownRequest = errors.New("no such request")
	// ErrNotCancellable: the request is finished or already cancelling;
	// the error text says which.
	ErrNotCancellable = errors.New("request cannot be cancelled")
	// ErrInitializeNotCancellable: the MCP spec forbids cancelling
	// initialize.
	ErrInitializeNotCancellable = errors.New("initialize cannot be cancelled (MCP spec)")
	// ErrIncomingRequest: the peer sent this request; a cancellation goes
	// in the direction of its request, so only the peer can cancel it.
	ErrIncomingRequest = errors.New("the server sent this request: only the server can cancel it")
)

// Session is one side of an MCP connection.
type Session struct {
	conn   transport.Conn
	out    transport.Sender // conn's send, asked for once
	cfg    Config
	clock  clock.Clock
	log    *slog.Logger
	ctx    context.Context // parent of incoming handlers' contexts
	cancel context.CancelFunc

	mu       sync.Mutex
	nextID   int64
	table    requestTable
	subs     []*Subscription
	closed   bool
	closing  bool // Close was called
	closeErr error
	peer     PeerInfo
	offered  string // the protocol version Initialize offered
	// lastDiscover is the last server/discover sent, for
	// LateDiscoverVersions.
	lastDiscover Ref
	// era2026 is set while the session speaks a era2026 revision: what
	// every request carries in _meta.
	era2026 *era2026Meta
	// early keeps the statuses of tasks not yet created (see rememberEarly).
	early map[string]TaskUpdate
	// earlyCancels keeps the peer's cancels that came before their
	// requests (see early_cancel.go).
	earlyCancels earlyCancels
	// watchers are the channels Request.Watch handed out, by row; each is
	// closed at its row's next change.
	watchers map[*request]chan struct{}
	// arrival is when the response being applied arrived, by the tap's
	// clock; zero outside applyResponse.
	arrival time.Time

	// onIllegalMove, when set, receives illegal state changes instead of
	// the default (see illegalMove); the interleavings test sets it.
	onIllegalMove func(msg string)

	// pretty follows a response spread over several lines; reader only.
	pretty prettyWatch
	// relatedID is the raw id of the request on whose own stream the
	// frame being read came (transport.Message.ID); reader only.
	relatedID []byte

	handlers sync.WaitGroup
	done     chan struct{}

	// deadlines times every request's timeouts with one timer.
	deadlines *deadlines
}

// request is a row of the table. info is guarded by Session.mu.
type request struct {
	info rowInfo
	call *Call // outgoing only

	// timers are the request's timeouts; nil for a request with none.
	timers       *requestTimers
	stopCtxWatch func() bool

	// token is the progressToken sent with the request; zero when none.
	// Progress is matched by it, never by the request's id.
	token ID

	cancelHandler context.CancelFunc // incoming only

	// The flags sit together: a row is small, the table holds thousands.
	resetOnProgress bool
	quietTimeout    bool // a timeout sends no cancellation (initialize, probes)
	written         bool // the request frame was handed to the transport
	cancelQueued    bool // Cancel came before it was written
	ignoreCancel    bool // incoming: the handler answers anyway

	// task links the request to tasks; nil for most requests, which
	// keeps the row small: the table holds thousands.
	task *taskLinks
}

// requestTimers are a request's timeouts (CallOptions.Timeout and
// MaxTimeout).
type requestTimers struct {
	timer, maxTimer     clock.Timer
	timeout, maxTimeout time.Duration
	holdTimeout         func() bool // CallOptions.HoldTimeout
}

// taskLinks are a request's ties to tasks.
type taskLinks struct {
	// augmented: params carry a task member, so the request may be
	// answered with a CreateTaskResult and is never cancelled with
	// notifications/cancelled.
	augmented bool
	// row is the task row the request created; forTask the task row a
	// tasks/get, tasks/result or tasks/cancel was sent for.
	row, forTask *request
}

// taskAugmented reports whether r asked for a task.
func (r *request) taskAugmented() bool { return r.task != nil && r.task.augmented }

// taskRow is the task row r created, or nil.
func (r *request) taskRow() *request {
	if r.task == nil {
		return nil
	}
	return r.task.row
}

// forTask is the task row r was sent for, or nil.
func (r *request) forTask() *request {
	if r.task == nil {
		return nil
	}
	return r.task.forTask
}

// editTask returns a copy of r's task record to change, in place of the
// one snapshots share. Callers hold s.mu.
func (r *request) editTask() *TaskInfo {
	t := &TaskInfo{}
	if r.info.Task != nil {
		*t = *r.info.Task
	}
	r.info.Task = t
	return t
}

// New starts a session on conn. It reads conn until conn ends or Close.
func New(conn transport.Conn, cfg Config) *Session {
	if cfg.SettleWindow == 0 {
		cfg.SettleWindow = time.Second
	}
	if cfg.MaxFinished <= 0 {
		cfg.MaxFinished = 10000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	realClock := cfg.Clock == nil
	if realClock {
		cfg.Clock = clock.Real()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		conn:   conn,
		out:    transport.SenderOf(conn),
		cfg:    cfg,
		clock:  cfg.Clock,
		log:    cfg.Logger,
		ctx:    ctx,
		cancel: cancel,
		nextID: 1,
		table:  newRequestTable(cfg.MaxFinished),
		done:   make(chan struct{}),
	}
	s.deadlines = &deadlines{clock: cfg.Clock, lazy: realClock}
	s.startReading()
	return s
}

// Subscribe returns a new stream of the session's events, from now on.
// Subscribe before the first request to see everything.
func (s *Session) Subscribe() *Subscription { return s.SubscribeTo(nil) }

// SubscribeTo is Subscribe for the events keep reports true for (and
// Closed, always): the others are dropped as they are emitted, never
// queued, so that a reader that wants a few kinds of event does not wake
// for every call's. keep runs with the session's lock held: it must be
// quick and must not call the session. nil keeps everything.
func (s *Session) SubscribeTo(keep func(Event) bool) *Subscription {
	sub := newSubscription()
	sub.keep = keep
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.subs[:0]
	for _, o := range s.subs {
		if !o.isClosed() {
			live = append(live, o)
		}
	}
	s.subs = append(live, sub)
	if s.closed {
		sub.push(Closed{At: s.clock.Now(), Err: s.closeErr, ByPeer: !s.closing})
		sub.end()
	}
	return sub
}

// emit sends e to every subscriber. Callers hold s.mu.
func (s *Session) emit(e Event) {
	for _, sub := range s.subs {
		sub.push(e)
	}
}

// Clock is the session's source of time (Config.Clock): what runs beside
// the session, such as a task's polling, keeps to it.
func (s *Session) Clock() clock.Clock { return s.clock }

// Logger is the session's log (Config.Logger): what runs beside the
// session, such as a health check, writes its findings there too.
func (s *Session) Logger() *slog.Logger { return s.log }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err says why the session ended: nil while it runs and after our own
// Close, else the transport's error (such as the server's exit status).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeErr
}

// Close ends the session: the transport is closed (which stops a stdio
// server), requests in flight fail, incoming handlers are cancelled and
// waited for.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	err := s.conn.Close()
	<-s.done
	s.handlers.Wait()
	return err
}

// setState moves r to state to and tells subscribers; a move that
// legalMove forbids is a bug, reported by illegalMove and not made.
// Callers hold s.mu.
func (s *Session) setState(r *request, to State, reason string) {
	from := r.info.State
	if !legalMove(r.info.Incoming, from, to) && (r.info.TaskID == "" || !legalTaskMove(from, to)) {
		s.illegalMove(r, to, reason)
		return
	}
	r.info.State = to
	now := s.arrival // the response that ended it arrived then
	if now.IsZero() {
		now = s.clock.Now()
	}
	if to.Final() {
		r.info.Ended = now
		r.stopTimers()
	}
	if len(s.subs) > 0 {
		s.emit(StateChanged{Ref: r.info.Ref(), From: from, To: to, At: now, Reason: reason})
	}
	s.changed(r)
	if to.Final() {
		if r.call != nil {
			r.call.resolve(r)
		}
		if r.forTask() != nil {
			s.taskOpEnded(r)
		}
		s.table.finish()
	}
}

func (r *request) stopTimers() {
	if t := r.timers; t != nil {
		// Dropped once stopped: a finished row keeps its durations only.
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
		if t.maxTimer != nil {
			t.maxTimer.Stop()
			t.maxTimer = nil
		}
	}
	if r.stopCtxWatch != nil {
		r.stopCtxWatch()
	}
}

// send writes one frame, with what the session knows of it (its id,
// method and mirrored headers: transport.Outgoing), logging a failure;
// the reader notices a dead transport on its own and ends the session.
func (s *Session) send(o transport.Outgoing) error {
	_, err := s.out.SendOutgoing(o)
	return s.sendFailed(err)
}

// sendStamped is send that also says when the frame was written: the time
// on its wire record when the transport stamps what it sends (a
// transport.Tap), else the session's clock once the send returned. Late
// traffic is timed from this reading, the one the wire log and
// transcripts show.
func (s *Session) sendStamped(o transport.Outgoing) (time.Time, error) {
	at, err := s.out.SendOutgoing(o)
	if at.IsZero() {
		at = s.clock.Now()
	}
	return at, s.sendFailed(err)
}

func (s *Session) sendFailed(err error) error {
	if err != nil {
		s.log.Debug("send failed", "err", err)
		return &SendError{Err: err}
	}
	return nil
}

// SendError means a frame could not be handed to the transport (the server's
// stdin is closed, an HTTP server cannot be reached), so the peer never
// saw it.
type SendError struct{ Err error }

// Error implements error.
func (e *SendError) Error() string { return "send: " + e.Err.Error() }

// Unwrap returns the transport's error.
func (e *SendError) Unwrap() error { return e.Err }

// Notify sends a notification.
func (s *Session) Notify(method string, params any) error {
	p, err := marshalParams(params)
	if err != nil {
		return err
	}
	s.mu.Lock()
	closed := s.closed
	refused := s.refuseInEra(method)
	s.mu.Unlock()
	if closed {
		return ErrSessionClosed
	}
	if refused != nil {
		return refused
	}
	return s.send(transport.Outgoing{Frame: appendRequest(nil, ID{}, method, p), Method: method})
}

// shutdown ends the session after the transport ended with err.
func (s *Session) shutdown(err error) {
	s.mu.Lock()
	var closeErr error
	if !errors.Is(err, transport.ErrClosed) && !errors.Is(err, io.EOF) {
		closeErr = err
	}
	s.closed = true
	s.closeErr = closeErr
	why := "session closed"
	if closeErr != nil {
		why = closeErr.Error()
	}
	// Under protocol 2026-07-28 over HTTP a request's stream is its own
	// connection: the client closing it is the request's cancel.
	streamCancel := errors.Is(err, transport.ErrStreamClosed)
	for _, r := range s.table.rows() {
		switch r.info.State {
		case Pending:
			if r.info.Incoming {
				if streamCancel {
					s.log.Info("cancel received", "id", r.info.ID.String(), "method", r.info.Method, "tool", r.info.Tool,
						"ran", s.clock.Now().Sub(r.info.Started), "signal", "stream closed")
				}
				s.setState(r, Cancelled, why)
				continue
			}
			r.info.w().Failure = why
			s.setState(r, Failed, why)
		case Cancelling:
			s.setState(r, Cancelled, r.info.m().CancelReason)
		}
	}
	// Handlers wake only now, their rows settled: one answering at once
	// would otherwise take a row cancelled by a closed stream for failed.
	s.cancel()
	s.emit(Closed{At: s.clock.Now(), Err: closeErr, ByPeer: !s.closing})
	for _, sub := range s.subs {
		sub.end()
	}
	s.mu.Unlock()
	s.deadlines.stop()
	if closeErr != nil && !streamCancel {
		s.log.Info("session ended", "err", closeErr)
	}
	close(s.done)
}

// Alive reports whether the session still runs: the transport has not
// ended and Close was not called.
func (s *Session) Alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && !s.closing
}

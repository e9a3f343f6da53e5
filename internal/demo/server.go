// Package demo is mcpoke's built-in MCP server, run as `mcpoke demo-server`
// and spawned through the real stdio transport when no server is given.
// Its tools exist to show the life of a request: progress, cancellation
// that is honoured, cancellation that is ignored (a real late response),
// floods of notifications, and both kinds of failure.
//
// It is built on session/ like any other peer: the session answers ping,
// handles notifications/cancelled and suppresses responses to cancelled
// requests; this package only supplies handlers.
package demo

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/version"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// ServerName is the demo server's serverInfo.name.
const ServerName = "mcpoke-demo"

// instructions is one line: clients show it under the server's name.
const instructions = "mcpoke demo server: call sleep and cancel it, stubborn to see a late response, " +
	"flood for 10,000 progress notifications, echo, fail for both kinds of error, and research, a task to cancel with tasks/cancel."

// server holds what the handlers share.
type server struct {
	log   *slog.Logger
	tools []*tool
	tasks *taskStore
	// sharedTasks: tasks is the store of every 2026-07-28 HTTP request,
	// which have no session to tie it to.
	sharedTasks bool
	conn        transport.Conn // set by serve
	// ignoring, if set, is called by stubborn once its request ignores
	// cancellation, before its work starts; the call may block. Tests use
	// it to cancel at a known point instead of after a sleep.
	ignoring func(session.ID)

	// Resources, prompts and logging (resources.go, prompts.go,
	// logging.go): when the server started, for demo://ticker; how often
	// it ticks and how long each step of a slow read takes (tests shorten
	// them); the subscriptions and the client's log level.
	started   time.Time
	tickEvery time.Duration
	slowStep  time.Duration
	subs      subscriptions
	level     logLevel
	// fixtures adds the conformance suite's resources and prompts
	// (conformance_rest.go) to the demo's own.
	fixtures bool
	mu       sync.Mutex
	client   mcp.ClientFeatures // what the client declared in initialize
}

// NewSession serves the demo server on conn. Its log (text format) goes
// to log: every cancellation it receives is logged there with the request
// id, tool, reason and how long the work had run.
func NewSession(conn transport.Conn, log io.Writer) *session.Session {
	return newServer(log).serve(conn)
}

// ServeConn serves the demo server on the conn of one session of an HTTP
// transport. Its log lines carry the session's id, shortened, so the
// cancels of concurrent clients can be told apart.
func ServeConn(sessionID string, conn transport.Conn, log io.Writer, opts Options) *session.Session {
	srv := newServer(log)
	if opts.ConformanceTools {
		srv.tools = append(srv.tools, preparedConformanceAskTools()...)
		srv.fixtures = true
	}
	if len(sessionID) > 8 {
		sessionID = sessionID[:8]
	}
	srv.log = srv.log.With("session", sessionID)
	srv.log.Info("session started")
	s := srv.serve(conn)
	go func() {
		<-s.Done()
		srv.log.Info("session ended")
	}()
	return s
}

// ServeRequest serves one request of protocol 2026-07-28 over HTTP, on
// the conn the transport made for it: no session, and a client that
// closes the response cancels it, which the log says as
// signal="stream closed".
func ServeRequest(conn transport.Conn, log io.Writer, opts Options) *session.Session {
	return serveRequest(conn, log, opts, nil)
}

// serveRequest is ServeRequest with the task store the requests share:
// with no session, a task created by one request is read and cancelled
// by the next ones. nil gives the request a store of its own.
func serveRequest(conn transport.Conn, log io.Writer, opts Options, tasks *taskStore) *session.Session {
	srv := newServer(log)
	if opts.ConformanceTools {
		srv.tools = append(srv.tools, preparedConformanceTools()...)
		srv.fixtures = true
	}
	if tasks != nil {
		srv.tasks, srv.sharedTasks = tasks, true
	}
	return srv.serve(conn)
}

func newServer(log io.Writer) *server {
	// Nowhere to log: a handler that is never enabled, so that no
	// record is even formatted (the cancel storm logs one per cancel).
	logger := slog.New(slog.DiscardHandler)
	if log != nil && log != io.Discard {
		logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return &server{
		log:   logger,
		tools: preparedTools(),

		started:   time.Now(),
		tickEvery: defaultTickEvery,
		slowStep:  time.Second,
		tasks:     newTaskStore(),
	}
}

// keptRequests is how many finished requests the demo's session keeps. A
// client keeps thousands, to tell a late answer from a stray one and to
// list them; a server answers and forgets: it needs only its own few
// requests to the client (ask) while they may still be answered late.
// Ten thousand finished calls, each pinning its frame, made every
// collection of the demo scan megabytes.
const keptRequests = 256

func (srv *server) serve(conn transport.Conn) *session.Session {
	srv.conn = conn
	handlers := map[string]session.Handler{
		"initialize": srv.initialize,
		"tools/list": srv.listTools,
		"tools/call": srv.callTool,
		// Tasks (tasks.go).
		"tasks/get":    extensionMethod("tasks/get", srv.tasks.getTask),
		"tasks/result": srv.tasks.taskResult,
		"tasks/list":   srv.tasks.listTasks,
		"tasks/cancel": extensionMethod("tasks/cancel", srv.cancelTask),
		"tasks/update": extensionMethod("tasks/update", srv.tasks.updateExtensionTask),
	}
	maps.Copy(handlers, srv.restHandlers())
	s := session.New(conn, session.Config{
		Logger:        srv.log,
		DrainOnEOF:    time.Second,
		Handlers:      traced(srv.bothEras(handlers)),
		Notifications: map[string]session.NotificationHandler{"notifications/roots/list_changed": srv.rootsChanged},
		SettleWindow:  settleGrace,
		Immediate:     map[string]session.ImmediateHandler{"tools/call": srv.callImmediately},
		MaxFinished:   keptRequests,
	})
	if !srv.sharedTasks { // a shared store outlives each request's session
		srv.tasks.bind(s)
	}
	go func() {
		<-s.Done()
		srv.stopSubscriptions()
	}()
	return s
}

// Serve runs the demo server over r and w (stdin and stdout of `mcpoke
// demo-server`) until r ends, then waits for tools still running.
func Serve(r io.Reader, w io.Writer, log io.Writer) error {
	s := NewSession(transport.NewStream(r, w, 0), log)
	<-s.Done()
	return s.Close()
}

// initializeResult is the server's half of the handshake.
type initializeResult struct {
	ProtocolVersion string                 `json:"protocolVersion"`
	Capabilities    map[string]any         `json:"capabilities"`
	ServerInfo      session.Implementation `json:"serverInfo"`
	Instructions    string                 `json:"instructions"`
}

// initialize answers with the client's protocol version when the demo
// speaks it, else with the latest one, as the lifecycle spec asks.
func (srv *server) initialize(_ context.Context, in *session.Incoming) (any, error) {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return nil, &session.RPCError{Code: session.CodeInvalidParams, Message: "initialize: params must be an object: " + err.Error()}
	}
	srv.noteClient(p.Capabilities)
	v := session.LatestVersion
	if slices.Contains(session.SupportedVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	caps := map[string]any{"tools": map[string]any{}}
	if v >= "2025-11-25" { // the first version with tasks
		caps["tasks"] = taskCapability
	}
	return initializeResult{
		ProtocolVersion: v,
		Capabilities:    withRestCapabilities(caps),
		ServerInfo:      demoImplementation(),
		Instructions:    instructions,
	}, nil
}

// demoImplementation is who the demo server says it is.
func demoImplementation() session.Implementation {
	return session.Implementation{Name: ServerName, Title: "mcpoke demo server", Version: version.String()}
}

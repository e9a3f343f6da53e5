package connect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/internal/clock"
	"github.com/mcpoke/mcpoke/internal/transcript"
	"github.com/mcpoke/mcpoke/internal/version"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// DefaultInitTimeout bounds the wait for a server's answer to initialize
// when Options.InitTimeout is zero.
const DefaultInitTimeout = 30 * time.Second

// clientInfo is what initialize says about mcpoke.
var clientInfo = session.Implementation{Name: "mcpoke", Version: version.String()}

// Options tune Start. The zero value works.
type Options struct {
	// Transcript, if set, receives an NDJSON transcript of everything on
	// the wire (see package transcript).
	Transcript io.Writer
	// Log, if set, receives the session's log in slog's text format:
	// cancellations sent and received, late traffic, oddities.
	Log io.Writer
	// CloseAfter are closed once the server is gone (Close) or could not
	// be started: hand over the files Log and Transcript write to, so
	// that they hold everything up to the end.
	CloseAfter []io.Closer
	// Session is the session's configuration; its Logger is replaced
	// when Log is set.
	Session session.Config
	// CloseGrace is how long Close waits for the server at each step
	// before escalating; 0 means the transport's default.
	CloseGrace time.Duration
	// Protocol chooses the protocol version: "" initialize with the
	// latest legacy version (what tests and embedders get); a legacy
	// version, initialize with it; a modern one (2026-07-28),
	// server/discover with it and no fallback; ProtocolAuto the spec's
	// probe, server/discover then initialize (what the CLI passes).
	Protocol string
	// ProbeTimeout bounds ProtocolAuto's server/discover probe; 0 means
	// DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// InitTimeout bounds the wait for initialize's answer; 0 means
	// DefaultInitTimeout.
	InitTimeout time.Duration
	// HTTP says how to reach a server given by URL (TLS trust, connect
	// timeout).
	HTTP transport.HTTPClientOptions
	// Auth, for a server reached by URL, authorizes its requests (OAuth,
	// see package internal/auth). While it logs in, the wait for
	// initialize's answer does not run out.
	Auth transport.Authorizer
	// Capabilities are the client capabilities initialize declares;
	// nil declares none ({}). Declare only what Session.Handlers answer.
	Capabilities json.RawMessage
	// ModernCapabilities are those a modern session declares in every
	// request's _meta (2026-07-28 has other ones: extensions, no tasks);
	// nil uses Capabilities.
	ModernCapabilities json.RawMessage
}

// Conn is a connected server: its process (if mcpoke started one), the
// session on it, the tap every frame passes, and the log and transcript
// that tap feeds. It is the one owner of all of them: Close ends them
// together.
type Conn struct {
	Spec    Spec
	Session *session.Session

	tap   *transport.Tap
	stdio *transport.Stdio // nil when attached to another transport
	// remote names the HTTP transport in use ("http" or "sse"), when the
	// server was reached by URL.
	remote interface{ Kind() string }
	opts   Options
	log    *slog.Logger
	clock  clock.Clock // the session's
	peer   session.PeerInfo
	// discarded counts what the server wrote that could not be used.
	discarded *discards
	// stage is the request of the handshake under way, for messages:
	// "server/discover" or "initialize".
	stage atomic.Value
	// probing: ProtocolAuto's probe is under way, with its own timeout;
	// the handshake's deadline waits for it.
	probing atomic.Bool
	// probeTimedOut: the probe got no answer in time and initialize
	// followed, for the message when that gets none either.
	probeTimedOut atomic.Bool
	// restartDeadline gives the handshake's next step the whole init
	// timeout again; set by Initialize.
	restartDeadline func()

	closeAfter sync.Once
}

// Start spawns the server and starts a session on it, without
// initializing: Subscribe to c.Session first to see every event, then call
// Initialize.
func Start(spec Spec, opts Options) (*Conn, error) {
	fail := func(err error) (*Conn, error) {
		closeAll(opts.CloseAfter)
		return nil, &StartError{Server: spec, Stage: "start", Err: err}
	}
	if len(spec.Inputs) > 0 {
		return fail(MissingInputError{Server: spec.Name, Input: spec.Inputs[0]})
	}
	if spec.URL != "" {
		conn, err := dialURL(spec, opts)
		if err != nil {
			return fail(err)
		}
		c := attach(spec, conn, opts)
		c.remote = conn.(interface{ Kind() string })
		c.log.Info("server reached", "url", spec.CommandLine(), "transport", spec.Transport)
		return c, nil
	}
	if spec.Command == "" {
		return fail(errors.New("no command to run"))
	}
	stdio, err := transport.StartStdio(transport.StdioOptions{
		Command: spec.Command, Args: spec.Args, Env: spec.Env, Dir: spec.Dir, CloseGrace: opts.CloseGrace,
	})
	if err != nil {
		return fail(err)
	}
	c := attach(spec, stdio, opts)
	c.stdio = stdio
	c.log.Info("server started", "command", spec.CommandLine(), "pid", stdio.Pid())
	return c, nil
}

// Attach starts a session on a transport that is already connected, such
// as an in-memory pipe to a peer in this process, without initializing.
// spec names the server in messages.
func Attach(spec Spec, conn transport.Conn, opts Options) *Conn {
	c := attach(spec, conn, opts)
	c.log.Info("server attached", "server", spec.Name)
	return c
}

func attach(spec Spec, conn transport.Conn, opts Options) *Conn {
	cfg := opts.Session
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	// One clock for the tap and the session: the wire log, transcript and
	// late timing agree.
	tap := transport.NewTap(conn, cfg.Clock.Now)
	d := &discards{}
	tap.Observe(d.observe)
	if opts.Transcript != nil {
		tap.Observe(transcript.New(opts.Transcript, tap.Start()).Observe)
	}
	if opts.Log != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelDebug})).
			With("server", spec.Name)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Conn{Spec: spec, Session: session.New(tap, cfg), tap: tap, opts: opts, log: cfg.Logger, clock: cfg.Clock, discarded: d}
}

// Initialize reaches a protocol version as Options.Protocol says: the MCP
// handshake (initialize), or in the modern era server/discover, or the
// probe that chooses between them. When the
// server exits, refuses, or does not answer within Options.InitTimeout
// (or before ctx ends), the error is a *StartError that quotes the
// server's stderr, and the connection is closed.
func (c *Conn) Initialize(ctx context.Context) (session.PeerInfo, error) {
	timeout := c.initTimeout()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := c.initDeadline(timeout, cancel)
	defer stop()
	type outcome struct {
		peer session.PeerInfo
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		// The handshake runs to its end whatever ctx does (initialize
		// cannot be cancelled); the select below gives up on it.
		peer, err := c.handshake(ctx)
		done <- outcome{peer, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		stage := c.Stage()
		err := fmt.Errorf("no answer to %s: %w", stage, context.Cause(ctx))
		if errors.Is(context.Cause(ctx), errInitDeadline) {
			what := ""
			if sum := c.discarded.summary(); sum != "" {
				what = "; " + sum
			}
			if c.probeTimedOut.Load() {
				stage = "server/discover nor to initialize"
				what = " each" + what
			}
			hint := "(allow longer with --init-timeout)"
			if downloader(c.Spec.Command) {
				hint = "(one run through npx or uvx may still be downloading itself: try again, or allow longer with --init-timeout)"
			}
			err = fmt.Errorf("no answer to %s within %s%s; is it an MCP server speaking stdio? %s", stage, timeout, what, hint)
			if c.remote != nil {
				err = fmt.Errorf("no answer to %s within %s from %s%s; is it an MCP endpoint? (allow longer with --init-timeout)", stage, timeout, c.Spec.CommandLine(), what)
			}
		}
		se := &StartError{Server: c.Spec, Stage: "initialize", Step: c.Stage(), Err: err, Stderr: c.stderrTail(stderrInError)}
		c.Close()
		<-done
		return session.PeerInfo{}, se
	}
	if o.err == nil {
		c.peer = o.peer
		c.log.Info("initialized", "name", o.peer.ServerInfo.Name, "version", o.peer.ServerInfo.Version,
			"protocolVersion", o.peer.ProtocolVersion, "era", o.peer.Era(), "by", o.peer.Negotiation)
		return o.peer, nil
	}
	return o.peer, c.initializeError(o.err)
}

// initTimeout is Options.InitTimeout or its default.
func (c *Conn) initTimeout() time.Duration {
	if c.opts.InitTimeout > 0 {
		return c.opts.InitTimeout
	}
	return DefaultInitTimeout
}

// Stage names the request the handshake is at: "server/discover" or
// "initialize".
func (c *Conn) Stage() string {
	if s, ok := c.stage.Load().(string); ok {
		return s
	}
	return "initialize"
}

// stderrInError is how many of the server's last stderr lines an error
// quotes.
const stderrInError = 10

// initializeError explains a failed handshake, preferring the server's
// exit status and stderr to the session's summary of them.
func (c *Conn) initializeError(err error) error {
	var rpcErr *session.RPCError
	var badVersion *session.UnsupportedVersionError
	if !errors.As(err, &rpcErr) && !errors.As(err, &badVersion) {
		// The request failed without an answer: the session ended. Its
		// end comes right after, with the transport's reason.
		waited := make(chan struct{})
		t := c.clock.AfterFunc(time.Second, func() { close(waited) })
		select {
		case <-c.Session.Done():
		case <-waited:
		}
		t.Stop()
		var exit *transport.ExitError
		if errors.As(c.Session.Err(), &exit) {
			se := &StartError{Server: c.Spec, Stage: "initialize", Step: c.Stage(), Err: errors.New(exitSummary(exit)), Stderr: exit.Stderr}
			c.Close()
			return se
		}
	}
	se := &StartError{Server: c.Spec, Stage: "initialize", Step: c.Stage(), Err: err, Stderr: c.stderrTail(stderrInError)}
	c.Close()
	return se
}

// Peer is what the server said in initialize; zero before it answered.
func (c *Conn) Peer() session.PeerInfo { return c.peer }

// Declared is the capabilities object mcpoke declares: initialize's, or in
// a modern session the one in every request's _meta.
func (c *Conn) Declared() json.RawMessage {
	if c.opts.ModernCapabilities != nil && c.Session.Era2026() {
		return c.opts.ModernCapabilities
	}
	if c.opts.Capabilities == nil {
		return json.RawMessage(`{}`)
	}
	return c.opts.Capabilities
}

// Transport names the transport, for display: "stdio", "http"
// (Streamable HTTP), "sse" (legacy HTTP+SSE) or "memory".
func (c *Conn) Transport() string {
	if c.stdio != nil {
		return "stdio"
	}
	if c.remote != nil {
		return c.remote.Kind()
	}
	return "memory"
}

// Observe adds o to the observers of every frame in and out (and every
// noise and stderr line), with its time: for a wire log, or timing. It
// is called synchronously and must not block.
func (c *Conn) Observe(o func(wire.Record)) { c.tap.Observe(o) }

// Started is when the connection's tap was made: the zero point of its
// transcript and wire times.
func (c *Conn) Started() time.Time { return c.tap.Start() }

// stderrTail returns up to n of the server's last stderr lines.
func (c *Conn) stderrTail(n int) []string { return c.tap.StderrTail(n) }

// pid is the server's process id, or 0 when mcpoke did not start it.
func (c *Conn) pid() int {
	if c.stdio == nil {
		return 0
	}
	return c.stdio.Pid()
}

// Close ends the session and stops the server: its stdin is closed, then
// it is sent SIGTERM, then SIGKILL. Then it closes Options.CloseAfter.
// It is safe to call more than once.
func (c *Conn) Close() error {
	err := c.Session.Close()
	c.closeAfter.Do(func() { closeAll(c.opts.CloseAfter) })
	return err
}

func closeAll(cs []io.Closer) {
	for _, f := range cs {
		f.Close()
	}
}

// initDeadline cancels the wait for initialize after timeout, unless a
// login is under way then (the person may take minutes in the browser) or
// ProtocolAuto's probe, which has its own timeout.
// errInitDeadline is the cause initDeadline ends the handshake with: only
// then was it "no answer within --init-timeout" (the caller's own context
// may end first, by Ctrl-C or its own deadline).
var errInitDeadline = fmt.Errorf("the init timeout passed: %w", context.DeadlineExceeded)

func (c *Conn) initDeadline(timeout time.Duration, cancel context.CancelCauseFunc) (stop func()) {
	hold := loginHold(c.opts.Auth)
	var t *time.Timer
	t = time.AfterFunc(timeout, func() {
		if (hold != nil && hold()) || c.probing.Load() {
			t.Reset(timeout)
			return
		}
		cancel(errInitDeadline)
	})
	c.restartDeadline = func() { t.Reset(timeout) }
	return func() { t.Stop() }
}

// downloader reports whether command fetches the server before running
// it (npx, uvx), so that a first start on a cold cache may take long.
func downloader(command string) bool {
	name := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(filepath.Base(command)), ".exe"), ".cmd")
	return name == "npx" || name == "uvx"
}

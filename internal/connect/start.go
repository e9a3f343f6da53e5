package connect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mcpoke/mcpoke/internal/transcript"
	"github.com/mcpoke/mcpoke/internal/version"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// Options tune Start. The zero value works.
type Options struct {
	// Transcript, if set, receives an NDJSON transcript of everything on
	// the wire (see package transcript).
	Transcript io.Writer
	// Log, if set, receives the session's log in slog's text format:
	// cancellations sent and received, late traffic, oddities.
	Log io.Writer
	// Session is the session's configuration; its Logger is replaced
	// when Log is set.
	Session session.Config
	// CloseGrace is how long Close waits for the server at each step
	// before escalating; 0 means the transport's default.
	CloseGrace time.Duration
}

// Conn is a running server with its tapped session.
type Conn struct {
	Spec    Spec
	Session *session.Session
	// Tap sees every frame in and out with its time; observe it for
	// timing (bench) or your own log.
	Tap *transport.Tap

	stdio *transport.Stdio
	log   *slog.Logger
}

// Start spawns the server and starts a session on it, without
// initializing: Subscribe to c.Session first to see every event, then call
// Initialize.
func Start(spec Spec, opts Options) (*Conn, error) {
	if spec.URL != "" {
		return nil, &StartError{Server: spec, Stage: "start", Err: fmt.Errorf("%w (%s)", ErrHTTPNotSupported, spec.URL)}
	}
	if spec.Command == "" {
		return nil, &StartError{Server: spec, Stage: "start", Err: errors.New("no command to run")}
	}
	stdio, err := transport.StartStdio(transport.StdioOptions{
		Command: spec.Command, Args: spec.Args, Env: spec.Env, Dir: spec.Dir, CloseGrace: opts.CloseGrace,
	})
	if err != nil {
		return nil, &StartError{Server: spec, Stage: "start", Err: err}
	}
	tap := transport.NewTap(stdio)
	if opts.Transcript != nil {
		tap.Observe(transcript.New(opts.Transcript, tap.Start()).Observe)
	}
	cfg := opts.Session
	if opts.Log != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelDebug})).
			With("server", spec.Name)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Logger.Info("server started", "command", spec.CommandLine(), "pid", stdio.Pid())
	return &Conn{Spec: spec, Session: session.New(tap, cfg), Tap: tap, stdio: stdio, log: cfg.Logger}, nil
}

// Initialize runs the MCP handshake, offering protocol (empty: the
// latest). When the server exits, refuses, or does not answer within
// ctx, the error is a *StartError that quotes the server's stderr, and the
// connection is closed.
func (c *Conn) Initialize(ctx context.Context, protocol string) (session.PeerInfo, error) {
	type outcome struct {
		peer session.PeerInfo
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		// initialize cannot be cancelled (MCP spec), so the session waits
		// for its answer whatever ctx does; the select below gives up on it.
		peer, err := c.Session.Initialize(context.Background(), session.InitializeOptions{
			ProtocolVersion: protocol,
			ClientInfo:      session.Implementation{Name: "mcpoke", Version: version.String()},
		})
		done <- outcome{peer, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		err := fmt.Errorf("no answer to initialize: %w", context.Cause(ctx))
		if errors.Is(err, context.DeadlineExceeded) {
			err = errors.New("no answer to initialize in time; is it an MCP server speaking stdio?")
		}
		se := &StartError{Server: c.Spec, Stage: "initialize", Err: err, Stderr: c.StderrTail(stderrInError)}
		c.Close()
		<-done
		return session.PeerInfo{}, se
	}
	if o.err == nil {
		c.log.Info("initialized", "name", o.peer.ServerInfo.Name, "version", o.peer.ServerInfo.Version,
			"protocolVersion", o.peer.ProtocolVersion)
		return o.peer, nil
	}
	return o.peer, c.initializeError(o.err)
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
		select {
		case <-c.Session.Done():
		case <-time.After(time.Second):
		}
		var exit *transport.ExitError
		if errors.As(c.Session.Err(), &exit) {
			se := &StartError{Server: c.Spec, Stage: "initialize", Err: errors.New(exitSummary(exit)), Stderr: exit.Stderr}
			c.Close()
			return se
		}
	}
	se := &StartError{Server: c.Spec, Stage: "initialize", Err: err, Stderr: c.StderrTail(stderrInError)}
	c.Close()
	return se
}

func exitSummary(e *transport.ExitError) string {
	if e.Signal != "" {
		return "killed by signal " + e.Signal
	}
	return fmt.Sprintf("exited with status %d", e.Code)
}

// StderrTail returns up to n of the server's last stderr lines.
func (c *Conn) StderrTail(n int) []string { return c.stdio.StderrTail(n) }

// Pid is the server's process id.
func (c *Conn) Pid() int { return c.stdio.Pid() }

// Close ends the session and stops the server: its stdin is closed, then
// it is sent SIGTERM, then SIGKILL. It is safe to call more than once.
func (c *Conn) Close() error {
	return c.Session.Close()
}

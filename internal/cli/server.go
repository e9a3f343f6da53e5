package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/session"
)

// initTimeout bounds the MCP handshake. It is generous because servers
// run through npx or uvx may download themselves first.
const initTimeout = 60 * time.Second

// closeGrace is how long a headless command waits for the server to exit
// after closing its stdin, before SIGTERM (and again before SIGKILL).
const closeGrace = time.Second

// resolveSpec picks the server: the command after --, a server from
// --config, or the built-in demo server.
func resolveSpec(g *globalFlags, command []string) (connect.Spec, error) {
	switch {
	case len(command) > 0 && g.config != "":
		return connect.Spec{}, usageError("give the server either after -- or with --config, not both")
	case g.server != "" && g.config == "":
		return connect.Spec{}, usageError("--server needs --config FILE to find %q in", g.server)
	case g.config != "":
		spec, err := connect.LoadServer(g.config, g.server)
		if err != nil {
			return connect.Spec{}, withCode(ExitUsage, err)
		}
		return spec, nil
	case len(command) > 0:
		return connect.CommandSpec(command), nil
	}
	spec, err := connect.DemoSpec()
	if err != nil {
		return connect.Spec{}, withCode(ExitFailed, err)
	}
	return spec, nil
}

// serverOptions say how a headless command connects.
type serverOptions struct {
	protocol string
	// transcript is the file the NDJSON transcript goes to, if any.
	transcript string
	session    session.Config
	// started, if set, runs after the server started and before the
	// handshake: subscribe to the session there to see everything.
	started func(*connect.Conn)
}

// server is an initialized connection and the files its log and
// transcript go to.
type server struct {
	*connect.Conn
	peer  session.PeerInfo
	files []*os.File
}

// openServer starts the server and initializes it. A server that cannot
// be started or fails the handshake is bad input: exit 2, with its
// stderr.
func openServer(ctx context.Context, g *globalFlags, spec connect.Spec, o serverOptions) (*server, error) {
	s := &server{}
	opts := connect.Options{Session: o.session, CloseGrace: closeGrace}
	if g.logFile != "" {
		f, err := openOutput("log", g.logFile)
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, f)
		opts.Log = f
	}
	if o.transcript != "" {
		f, err := openOutput("transcript", o.transcript)
		if err != nil {
			s.closeFiles()
			return nil, err
		}
		s.files = append(s.files, f)
		opts.Transcript = f
	}
	conn, err := connect.Start(spec, opts)
	if err != nil {
		s.closeFiles()
		return nil, withCode(ExitUsage, err)
	}
	s.Conn = conn
	if o.started != nil {
		o.started(conn)
	}
	ictx, cancel := context.WithTimeout(ctx, initTimeout)
	defer cancel()
	s.peer, err = conn.Initialize(ictx, o.protocol)
	if err != nil {
		s.Close()
		var se *connect.StartError
		if errors.As(err, &se) {
			return nil, withCode(ExitUsage, err)
		}
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return s, nil
}

// Close stops the server, then closes the log and transcript, which hold
// everything up to the end. It may be called more than once.
func (s *server) Close() {
	if s.Conn != nil {
		s.Conn.Close()
	}
	s.closeFiles()
}

func (s *server) closeFiles() {
	for _, f := range s.files {
		f.Close()
	}
	s.files = nil
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpoke/mcpoke/internal/auth"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// closeGrace is how long a headless command waits for the server to exit
// after closing its stdin, before SIGTERM (and again before SIGKILL).
const closeGrace = time.Second

// resolveSpec picks the server: the command after --, a server from
// --config, or the built-in demo server.
func resolveSpec(g *globalFlags, command []string) (connect.Spec, error) {
	spec, err := pickSpec(g, command)
	if err != nil {
		return spec, err
	}
	switch g.transport {
	case "auto", "http", "sse":
	default:
		return connect.Spec{}, usageError("--transport %q: use auto, http or sse", g.transport)
	}
	if spec.URL == "" {
		if len(g.headers) > 0 || g.caCert != "" || g.insecure || g.transport != "auto" || g.clientID != "" || g.clientSecret != "" {
			return connect.Spec{}, usageError("--header, --transport, --ca-cert, --insecure, --client-id and --client-secret go with a server reached by URL (--url)")
		}
		return spec, nil
	}
	if g.transport != "auto" || spec.Transport == "" {
		spec.Transport = g.transport
	}
	spec.Headers = append(spec.Headers, g.headers...)
	if _, err := connect.ParseHeaders(spec.Headers); err != nil {
		return connect.Spec{}, usageError("--header: %v", err)
	}
	if g.insecure {
		fmt.Fprintln(os.Stderr, "mcpoke: WARNING: --insecure: TLS certificates are not verified; anyone on the path can read and change this traffic, credentials included")
	}
	return spec, nil
}

// httpOptions say how to reach a server by URL.
func httpOptions(g *globalFlags) transport.HTTPClientOptions {
	return transport.HTTPClientOptions{CACertFile: g.caCert, Insecure: g.insecure}
}

func pickSpec(g *globalFlags, command []string) (connect.Spec, error) {
	switch {
	case g.url != "" && (len(command) > 0 || g.config != ""):
		return connect.Spec{}, usageError("give the server one way: --url, after --, or with --config")
	case g.url != "":
		if !connect.IsURL(g.url) {
			if !strings.Contains(g.url, "://") {
				return connect.Spec{}, usageError("--url %q has no scheme: did you mean http://%s?", transport.RedactURL(g.url), transport.RedactURL(g.url))
			}
			return connect.Spec{}, usageError("--url %q is not an http:// or https:// URL", transport.RedactURL(g.url))
		}
		return connect.URLSpec(g.url), nil
	case len(command) > 0 && g.config != "":
		return connect.Spec{}, usageError("give the server either after -- or with --config, not both")
	case g.server != "" && g.config == "":
		return connect.Spec{}, usageError("--server needs --config FILE to find %q in", g.server)
	case g.config != "":
		spec, err := connect.LoadServer(g.config, g.server)
		if err != nil {
			return connect.Spec{}, withCode(ExitUsage, err)
		}
		for _, w := range spec.UnsetEnvWarnings() {
			fmt.Fprintln(os.Stderr, "mcpoke: warning: "+termtext.Line(w))
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
	// followTasks: the command follows a task a server makes of its
	// tools/call, so a modern session declares the tasks extension.
	followTasks bool
	// transcript is the file the NDJSON transcript goes to, if any.
	transcript string
	session    session.Config
	// started, if set, runs after the server started and before the
	// handshake: subscribe to the session there to see everything.
	started func(*connect.Conn)
	// auth, if set, authorizes a server reached by URL; nil means the
	// usual OAuth provider with the terminal prompt.
	auth *auth.Provider
	// asked, if set, receives the log of the server's questions and how
	// the flags answered them.
	asked func(*mcp.ClientSide, *askLog)
	// prepare, if set, adjusts the options last, before the server
	// starts (mcpoke check installs its own answering side there).
	prepare func(*connect.Options)
}

// openServer starts the server and initializes it; its log and
// transcript files close with it. A server that cannot be started or
// fails the handshake is bad input: exit 2, with its stderr.
func openServer(ctx context.Context, g *globalFlags, spec connect.Spec, o serverOptions) (*connect.Conn, error) {
	if err := checkProtocol(o.protocol); err != nil {
		return nil, err
	}
	opts := connect.Options{Session: o.session, CloseGrace: closeGrace, Protocol: o.protocol, InitTimeout: g.initTimeout, HTTP: httpOptions(g)}
	if err := setAuthorizer(&opts, g, spec, o.auth); err != nil {
		return nil, err
	}
	cs, asked, err := headlessClientSide(&g.client, spec, o.protocol, o.followTasks)
	if err != nil {
		return nil, err
	}
	cs.Install(&opts.Session)
	opts.Capabilities = cs.Capabilities(o.protocol)
	opts.ModernCapabilities = cs.Capabilities(session.Era2026Version)
	if o.asked != nil {
		o.asked(cs, asked)
	}
	if o.prepare != nil {
		o.prepare(&opts)
	}
	closeFiles := func() { closeAll(opts.CloseAfter) }
	opts.Session.Trace = opts.Session.Trace || g.tracing.trace || g.tracing.otlpEndpoint != ""
	var spans *spanExport
	if g.tracing.exporting() {
		var err error
		if spans, err = startExport(g.tracing); err != nil {
			return nil, withCode(ExitUsage, err)
		}
		opts.CloseAfter = append(opts.CloseAfter, spans)
	}
	if g.logFile != "" {
		f, err := openOutput("log", g.logFile)
		if err != nil {
			return nil, err
		}
		opts.Log = f
		opts.CloseAfter = append(opts.CloseAfter, f)
	}
	if o.transcript != "" {
		f, err := openOutput("transcript", o.transcript)
		if err != nil {
			closeFiles()
			return nil, err
		}
		opts.Transcript = f
		opts.CloseAfter = append(opts.CloseAfter, f)
	}
	conn, err := connect.Start(spec, opts)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if spans != nil {
		spans.watch(conn)
	}
	if o.started != nil {
		o.started(conn)
	}
	if _, err := conn.Initialize(ctx); err != nil {
		conn.Close()
		var se *connect.StartError
		if errors.As(err, &se) {
			return nil, withCode(ExitUsage, err)
		}
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return conn, nil
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

// protocolFlag adds --protocol: auto, or the version to speak.
func protocolFlag(fl *pflag.FlagSet, p *string) {
	fl.StringVar(p, "protocol", connect.ProtocolAuto, "protocol VERSION to speak: auto (server/discover, falling back to initialize when it fails or, over HTTP, "+
		"gets no answer within 3s, a clock that stops while you log in), "+
		strings.Join(session.Era2026Versions, ", ")+" (server/discover, no handshake) or "+
		strings.Join(session.SupportedVersions, ", ")+" (initialize)")
}

// checkProtocol refuses a --protocol mcpoke does not speak.
func checkProtocol(p string) error {
	if p == "" || p == connect.ProtocolAuto || session.Speaks(p) {
		return nil
	}
	return usageError("--protocol %q is not a version mcpoke implements; use auto or one of %s",
		p, strings.Join(session.AllVersions(), ", "))
}

// setAuthorizer gives a server reached by URL its OAuth provider: p, or
// one that prompts on the terminal.
func setAuthorizer(opts *connect.Options, g *globalFlags, spec connect.Spec, p *auth.Provider) error {
	if p == nil {
		var err error
		if p, err = newAuthorizer(g, spec, terminalPrompt(), false); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	if p != nil {
		opts.Auth = p
	}
	return nil
}

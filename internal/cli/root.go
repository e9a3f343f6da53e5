// Package cli is mcpoke's command line: the subcommands, their flags and
// help, and the headless commands call, tools and bench. The interactive
// UI is opened by runTUI (tui.go).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/suggest"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/version"
	"github.com/mcpoke/mcpoke/transport"
	"github.com/mcpoke/mcpoke/ui"
)

// globalFlags are accepted by every command.
type globalFlags struct {
	config  string
	server  string
	logFile string
	// initTimeout bounds the wait for initialize's answer.
	initTimeout time.Duration
	// force sends requests for capabilities the server did not declare.
	force bool
	// settle is the settle window: how long a cancelled request is watched
	// before it is called cancelled; settleSet says --settle was given.
	settle    time.Duration
	settleSet func() bool
	// A remote server: its URL, transport, headers and TLS trust.
	url       string
	transport string
	headers   []string
	caCert    string
	insecure  bool
	// cancelMode is the TUI's --cancel-mode (call has its own).
	cancelMode string
	// An OAuth client registered beforehand (see auth.go).
	clientID, clientSecret string
	// client says how the server's own requests are answered.
	client clientSideFlags
	// protocol is the TUI's --protocol (each command has its own).
	protocol string
	// pingInterval is the TUI's --ping-interval; 0 turns health pings off.
	pingInterval time.Duration
	// tuiTimeouts are the TUI's --timeout and --max-timeout for the
	// requests it sends (each command has its own).
	tuiTimeouts timeoutFlags
	// tracing is --trace and --otlp-endpoint.
	tracing traceFlags
}

// settleFlag adds --settle to fl, for g.
func settleFlag(fl *pflag.FlagSet, g *globalFlags) {
	fl.DurationVar(&g.settle, "settle", time.Second,
		"the settle window: how long a cancelled request is watched, as cancelling, before it is called cancelled (0 for none); not part of its run time")
	g.settleSet = func() bool { return fl.Lookup("settle").Changed }
}

// settleWindow is --settle as session.Config.SettleWindow takes it,
// where 0 means the default and a negative window none.
func (g *globalFlags) settleWindow() time.Duration {
	if g.settle <= 0 {
		return -1
	}
	return g.settle
}

// callSettleWindow is the window for call and bench, which watch late
// traffic themselves (--wait-late): none unless --settle asks for one.
func (g *globalFlags) callSettleWindow() time.Duration {
	if g.settleSet == nil || !g.settleSet() {
		return -1
	}
	return g.settleWindow()
}

// Main runs mcpoke with the process's arguments and returns the exit
// code. SIGINT, SIGTERM and SIGHUP end the command's context; the code is
// then 128 plus the signal's number (see stopOnSignal).
func Main() int {
	ctx, interrupted := stopOnSignal()
	code := execute(ctx)
	if sig, ok := interrupted(); ok {
		code = 128 + sig
	}
	return code
}

// execute runs the command line under ctx and returns the exit code.
func execute(ctx context.Context) int {
	root := newRoot()
	tidyHelp(root)
	err := fang.Execute(ctx, root,
		fang.WithVersion(version.String()),
		fang.WithErrorHandler(printError),
	)
	return exitStatus(err)
}

// printError prints a command's error as plain lines starting with
// "mcpoke:", easy to read and to grep, with any server text in it made
// safe for the terminal. A quiet exit prints nothing.
func printError(w io.Writer, _ fang.Styles, err error) {
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return
	}
	fmt.Fprintf(w, "mcpoke: %s\n", termtext.Block(err.Error()))
	if exitStatus(err) == ExitUsage && isFlagError(err) {
		fmt.Fprintln(w, "Run mcpoke --help (or mcpoke COMMAND --help) for usage.")
	}
	if errors.Is(err, transport.ErrNoSSEEndpoint) {
		fmt.Fprintln(w, "Try --transport http: the server may speak Streamable HTTP.")
	}
}

// isFlagError reports whether cobra rejected the command line itself.
func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

// flagError is cobra's complaint about flags or arguments.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// newRoot builds the command tree.
func newRoot() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "mcpoke [-- CMD ARGS...]",
		Short: "Poke MCP servers: call tools, cancel them, and see what really happens on the wire",
		Long: `mcpoke is a terminal client for the Model Context Protocol. It shows the life of
every request: progress, cancellation (notifications/cancelled), and responses that
arrive too late.

Without a subcommand it opens the interactive UI. The server is the command after --,
or one from a client config file (--config FILE --server NAME), or by default the
built-in demo server (mcpoke demo-server).

The reference is in the binary: mcpoke help lists its topics (tui, call, check,
protocol, oauth, exit-codes, ...), mcpoke help TOPIC shows one.

` + exitCodesHelp,
		Example: `  # The interactive UI on the built-in demo server
  mcpoke

  # Call a tool, cancel it after half a second, and watch for late traffic
  mcpoke call sleep --cancel-after 500ms --wait-late 2s

  # The same against any stdio server
  mcpoke call trigger-long-running-operation --args '{"duration":5,"steps":5}' \
      --cancel-after 1s --wait-late 5s -- npx -y @modelcontextprotocol/server-everything

  # A remote server over Streamable HTTP (or legacy SSE)
  # (double quotes, so that the shell puts the token in)
  mcpoke tools --url http://127.0.0.1:3001/mcp --header "Authorization: Bearer $TOKEN"

  # A server from Claude Desktop's config
  mcpoke tools --config ~/.config/Claude/claude_desktop_config.json --server everything`,
		Args: rootArgs,
		RunE: onServer(g, nil, func(cmd *cobra.Command, args []string, spec connect.Spec) error {
			return runTUI(cmd, g, spec)
		}),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return withCode(ExitUsage, &flagError{err})
	})
	root.Flags().StringVar(&g.cancelMode, "cancel-mode", "notify", "how the UI cancels over HTTP: notify (notifications/cancelled), close (drop the request's response stream) or both")
	protocolFlag(root.Flags(), &g.protocol)
	addTimeoutFlags(root.Flags(), &g.tuiTimeouts, "each request the UI sends (the t key changes it for new calls)", "each request")
	root.Flags().DurationVar(&g.pingInterval, "ping-interval", ui.DefaultPingInterval, "ping the server after this long without a frame from it; the header shows the round trip, "+
		"or how long a ping goes unanswered (0: off; protocols up to 2025-11-25, as 2026-07-28 has no ping)")
	root.Flags().StringVar(&g.tracing.otlpReceive, "otlp-receive", "", "receive the server's spans over OTLP/HTTP on HOST:PORT (loopback: 127.0.0.1:4318; implies --trace); "+
		"a server mcpoke starts is given OTEL_EXPORTER_OTLP_ENDPOINT to match; the timeline (d) draws a request's server spans")
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", "", "client config FILE with the server (Claude Desktop, Cursor or VS Code format)")
	pf.StringVar(&g.server, "server", "", "NAME of the server in --config")
	pf.StringVar(&g.logFile, "log", "", "write the session's log (cancellations, late traffic, oddities) to FILE")
	pf.DurationVar(&g.initTimeout, "init-timeout", connect.DefaultInitTimeout,
		"how long to wait for the server to answer the handshake; with --protocol auto a server mcpoke starts gets as long for server/discover, "+
			"then as long again for initialize (servers run through npx or uvx may download themselves first)")
	settleFlag(pf, g)
	pf.StringVar(&g.url, "url", "", "reach the server at URL over HTTP (a single http(s) URL after -- does the same)")
	pf.StringVar(&g.transport, "transport", "auto", "HTTP transport for --url: auto (Streamable HTTP, falling back to legacy SSE), http or sse")
	pf.StringArrayVar(&g.headers, "header", nil, "send 'Name: value' with every HTTP request (repeatable; credentials are redacted in logs)")
	pf.StringVar(&g.caCert, "ca-cert", "", "trust the PEM certificates in FILE besides the system roots")
	pf.BoolVar(&g.insecure, "insecure", false, "do not verify TLS certificates (dangerous: anyone on the path can read and change the traffic)")

	addClientSideFlags(pf, &g.client)
	addTraceFlags(pf, &g.tracing)
	pf.BoolVar(&g.force, "force", false, "send requests the server did not declare a capability for "+
		"(tools/list and tools/call to a server without tools); the transcript notes each one forced")

	root.AddCommand(newCallCommand(g), newToolsCommand(g), newPingCommand(g), newBenchCommand(g), newCheckCommand(g),
		newDiagramCommand(g), newDemoServerCommand(), newAuthCommand(g))
	root.AddCommand(newFloorEchoCommand())
	authFlags(root, g)
	root.AddCommand(newResourcesCommand(g), newReadCommand(g), newPromptsCommand(g), newPromptCommand(g))
	root.AddCommand(newTasksCommand(g))
	root.AddCommand(newListenCommand(g))
	root.AddCommand(newProxyCommand(g), newAttachCommand())
	root.SetHelpCommand(newHelpCommand(root))
	return root
}

// rootArgs allows only a server command after --, so that a mistyped
// subcommand is reported as one.
func rootArgs(cmd *cobra.Command, args []string) error {
	if cmd.ArgsLenAtDash() == 0 || len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if !c.Hidden {
			names = append(names, c.Name())
		}
	}
	msg := "unknown command " + quote(args[0])
	if near := suggest.Closest(args[0], names, 2); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	} else {
		msg += "; commands: " + strings.Join(names, ", ")
	}
	return withCode(ExitUsage, &flagError{fmt.Errorf("%s (a server command goes after --)", msg)})
}

// dashArgs returns the arguments after --: the server command.
func dashArgs(cmd *cobra.Command, args []string) []string {
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		return args[at:]
	}
	return nil
}

// openOutput creates the file a flag names.
func openOutput(flag, path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, usageError("--%s: %v", flag, err)
	}
	return f, nil
}

func quote(s string) string { return `"` + termtext.Line(s) + `"` }

package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/auth"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui"
)

// minPingInterval is the shortest --ping-interval: a health ping is
// housekeeping, not a load test.
const minPingInterval = time.Second

// runTUI opens the interactive UI on the server spec names. The UI
// starts the server through connect.Start (and again on reconnect), so it
// subscribes before the handshake and shows initialize like any request.
func runTUI(cmd *cobra.Command, g *globalFlags, spec connect.Spec) error {
	if g.pingInterval < 0 || g.pingInterval > 0 && g.pingInterval < minPingInterval {
		// Below a second the pings would follow each other's answers.
		return usageError("--ping-interval %s: use a duration such as 30s (at least %s), or 0 for no health pings", g.pingInterval, minPingInterval)
	}
	if err := g.tuiTimeouts.checkTimeouts(); err != nil {
		return err
	}
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return usageError("the interactive UI needs a terminal; in scripts use mcpoke tools or mcpoke call (see mcpoke --help)")
	}
	spec, err := askInputs(spec, os.Stdin, os.Stderr)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	mode, err := parseCancelMode(g.cancelMode)
	if err != nil {
		return err
	}
	if err := checkProtocol(g.protocol); err != nil {
		return err
	}
	opts := connect.Options{InitTimeout: g.initTimeout, HTTP: httpOptions(g), Protocol: g.protocol,
		Session: session.Config{SettleWindow: g.settleWindow(), CancelMode: mode, Trace: g.tracing.trace || g.tracing.otlpEndpoint != ""}}
	// --otlp-receive: the server's spans come here, for the timeline.
	var serverSpans ui.SpanSource
	if g.tracing.otlpReceive != "" {
		recv, err := otlprecv.Listen(g.tracing.otlpReceive)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		defer recv.Close()
		serverSpans, opts.Session.Trace = recv, true
		if spec.Command != "" && !hasEnv(spec.Env, "OTEL_EXPORTER_OTLP_ENDPOINT") {
			spec.Env = append(append([]string(nil), spec.Env...), "OTEL_EXPORTER_OTLP_ENDPOINT="+recv.Endpoint())
		}
	}
	// One exporter for the run; each connection (reconnects too) is watched.
	var spans *spanExport
	if g.tracing.exporting() {
		if spans, err = startExport(g.tracing); err != nil {
			return withCode(ExitUsage, err)
		}
		defer spans.Close()
	}
	start := func(spec connect.Spec, o connect.Options) (*connect.Conn, error) {
		c, err := connect.Start(spec, o)
		if err == nil && spans != nil {
			spans.watch(c)
		}
		return c, err
	}
	if g.logFile != "" {
		// One log for every connection of the run, reconnects included.
		f, err := openOutput("log", g.logFile)
		if err != nil {
			return err
		}
		defer f.Close()
		opts.Log = f
	}
	policy, roots, err := tuiClientSide(&g.client, spec)
	if err != nil {
		return err
	}
	var program *tea.Program
	login := &tuiLogin{send: func(msg tea.Msg) {
		if program != nil {
			program.Send(msg)
		}
	}}
	m := ui.New(ui.Options{
		Connect: func(context.Context) (*connect.Conn, error) {
			o, err := login.options(g, spec, opts)
			if err != nil {
				return nil, err
			}
			return start(spec, o)
		},
		ConnectAnswering: func(_ context.Context, cs *mcp.ClientSide) (*connect.Conn, error) {
			o, err := login.options(g, spec, opts)
			if err != nil {
				return nil, err
			}
			cs.Install(&o.Session) // a session of its own: fresh handler maps
			o.Capabilities = cs.Capabilities(o.Protocol)
			o.ModernCapabilities = cs.Capabilities(session.Era2026Version)
			return start(spec, o)
		},
		AuthState:    login.state,
		OpenURL:      auth.OpenBrowser,
		Roots:        roots,
		Policy:       policy,
		Demo:         isDemo(spec),
		Force:        g.force,
		Timeout:      g.tuiTimeouts.timeout,
		MaxTimeout:   callTimeouts(g.tuiTimeouts.timeout, g.tuiTimeouts.maxTimeout).MaxTimeout,
		Settle:       opts.Session.SettleWindow,
		CancelMode:   mode,
		PingInterval: g.pingInterval,
		ServerSpans:  serverSpans,
	})
	p := tea.NewProgram(m, tea.WithContext(cmd.Context()))
	program = p
	_, err = p.Run()
	if err == nil {
		if serr := m.StartErr(); serr != nil {
			// The screen is gone with the alternate screen: say why again.
			connect.CloseAll()
			return withCode(ExitUsage, fmt.Errorf("could not start the server: %w", serr))
		}
	}
	if err == nil && cmd.Context().Err() == nil {
		// The UI quit. A normal quit stops the server before the UI ends,
		// so one still running was left by a forced quit (ctrl+c twice),
		// whose polite close may be waiting on it: kill it now.
		connect.KillAll()
	} else {
		// Interrupted (a second signal kills, see stopOnSignal) or
		// failed: stop servers politely.
		connect.CloseAll()
	}
	if err != nil && cmd.Context().Err() == nil {
		return withCode(ExitFailed, err)
	}
	return nil
}

// isDemo reports whether spec is the built-in demo server, which gets
// the first-run hint.
func isDemo(spec connect.Spec) bool {
	demo, err := connect.DemoSpec()
	return err == nil && spec.Command == demo.Command && len(spec.Args) == 1 && spec.Args[0] == connect.DemoServerArg
}

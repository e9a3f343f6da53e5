package cli

import (
	"context"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/version"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
	"github.com/mcpoke/mcpoke/ui"
)

// initializeTimeout bounds the wait for a server's answer to initialize;
// past it the UI says the server does not answer and offers to reconnect.
const initializeTimeout = 30 * time.Second

// runTUI opens the interactive UI on the server spec names. The UI
// starts the server through connect.Start (and again on reconnect), so it
// subscribes before the handshake and shows initialize like any request.
func runTUI(cmd *cobra.Command, g *globalFlags, spec connect.Spec) error {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return usageError("the interactive UI needs a terminal; in scripts use mcpoke tools or mcpoke call (see mcpoke --help)")
	}
	var logw io.Writer
	if g.logFile != "" {
		f, err := openOutput("log", g.logFile)
		if err != nil {
			return err
		}
		defer f.Close()
		logw = f
	}
	m := ui.New(ui.Options{
		Connect:    tuiConnector(spec, logw),
		ClientInfo: session.Implementation{Name: "mcpoke", Version: version.String()},
		Demo:       isDemo(spec),
	})
	p := tea.NewProgram(m, tea.WithContext(cmd.Context()))
	_, err := p.Run()
	if err == nil && cmd.Context().Err() == nil {
		// The UI quit. A normal quit stops the server before the UI ends,
		// so one still running was left by a forced quit (ctrl+c twice),
		// whose polite close may be waiting on it: kill it now.
		transport.KillAll()
	} else {
		// Interrupted (a second signal kills, see main) or failed: stop
		// servers politely.
		transport.CloseAll()
	}
	if err != nil && cmd.Context().Err() == nil {
		return withCode(ExitFailed, err)
	}
	return nil
}

// tuiConnector starts the server for the UI, without initializing it.
func tuiConnector(spec connect.Spec, logw io.Writer) ui.Connector {
	return func(context.Context) (*ui.Connection, error) {
		c, err := connect.Start(spec, connect.Options{Log: logw})
		if err != nil {
			return nil, err
		}
		return &ui.Connection{
			Session:   c.Session,
			Tap:       c.Tap,
			Transport: "stdio",
			Label:     spec.Name,
			Initialize: func(ctx context.Context) (session.PeerInfo, error) {
				ctx, cancel := context.WithTimeout(ctx, initializeTimeout)
				defer cancel()
				return c.Initialize(ctx, "")
			},
		}, nil
	}
}

// isDemo reports whether spec is the built-in demo server, which gets
// the first-run hint.
func isDemo(spec connect.Spec) bool {
	demo, err := connect.DemoSpec()
	return err == nil && spec.Command == demo.Command && len(spec.Args) == 1 && spec.Args[0] == connect.DemoServerArg
}

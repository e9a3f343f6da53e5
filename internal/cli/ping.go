package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

func newPingCommand(g *globalFlags) *cobra.Command {
	var (
		count    int
		within   timeoutFlags
		asJSON   bool
		protocol string
	)
	cmd := &cobra.Command{
		Use:   "ping [--count N] [--json] [-- CMD ARGS...]",
		Short: "Connect, initialize and ping a server, with each round trip",
		Long: `Connect to a server, run the initialize handshake and send ping (which every
MCP server must answer, whatever it declared), printing each round trip. It is the
smallest check that a server is alive and speaks MCP.`,
		Example: `  # Is the reference server alive over HTTP?
  mcpoke ping --url http://127.0.0.1:3001/mcp

  # Three pings to the built-in demo server, as JSON
  mcpoke ping --count 3 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := noArgsBeforeDash("ping")(cmd, args); err != nil {
				return err
			}
			if count < 1 {
				return usageError("--count must be at least 1")
			}
			return within.checkTimeouts()
		},
		RunE: onServer(g, nil, func(cmd *cobra.Command, args []string, spec connect.Spec) error {
			return runPing(cmd.Context(), cmd.OutOrStdout(), g, spec, protocol, count, within, asJSON)
		}),
	}
	cmd.Flags().IntVar(&count, "count", 1, "how many pings to send, one after another")
	addTimeoutFlags(cmd.Flags(), &within, "each ping", "the whole run of --count pings")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"server": {...}, "pings": [{"ms": ...}]} as one JSON object`)
	protocolFlag(cmd.Flags(), &protocol)
	return cmd
}

func runPing(ctx context.Context, w io.Writer, g *globalFlags, spec connect.Spec, protocol string, count int, within timeoutFlags, asJSON bool) error {
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: protocol})
	if err != nil {
		return err
	}
	defer srv.Close()
	run := pingRun(ctx, srv.Session, count, within)
	peer := srv.Peer()
	if asJSON {
		out := struct {
			Server  reportServer `json:"server"`
			Method  string       `json:"method"`
			Pings   []pingResult `json:"pings"`
			Stopped string       `json:"stopped,omitempty"`
		}{serverOf(peer), mcp.PingMethod(srv.Session), run.pings, run.stopped}
		if err := writeJSON(w, out, out.Server.textWarnings()); err != nil {
			return err
		}
		return run.exit()
	}
	fmt.Fprintf(w, "%s %s, protocol %s: %s\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version),
		termtext.Line(peer.ProtocolVersion), english.Plural(len(run.pings), "ping"))
	if m := mcp.PingMethod(srv.Session); m != "ping" {
		fmt.Fprintf(w, "(protocol %s has no ping: each is a %s)\n", termtext.Line(peer.ProtocolVersion), m)
	}
	for i, p := range run.pings {
		switch {
		case p.TimedOut:
			fmt.Fprintf(w, "ping %d  timed out after %s: %s\n", i+1, human(p.Ms), termtext.Line(p.Error))
		case p.Error != "":
			fmt.Fprintf(w, "ping %d  failed after %s: %s\n", i+1, human(p.Ms), termtext.Line(p.Error))
		default:
			fmt.Fprintf(w, "ping %d  %s\n", i+1, human(p.Ms))
		}
	}
	if run.stopped != "" {
		fmt.Fprintf(w, "stopped: %s\n", run.stopped)
	}
	return run.exit()
}

package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

func newPingCommand(g *globalFlags) *cobra.Command {
	var (
		count    int
		timeout  time.Duration
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
			return nil
		},
		RunE: onServer(g, nil, func(cmd *cobra.Command, args []string, spec connect.Spec) error {
			return runPing(cmd.Context(), cmd.OutOrStdout(), g, spec, protocol, count, timeout, asJSON)
		}),
	}
	cmd.Flags().IntVar(&count, "count", 1, "how many pings to send, one after another")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "give up on a ping after DUR (it is then cancelled on the wire)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"server": {...}, "pings": [{"ms": ...}]} as one JSON object`)
	protocolFlag(cmd.Flags(), &protocol)
	return cmd
}

// pingResult is one ping's round trip, or why it got none.
type pingResult struct {
	Ms    float64 `json:"ms"`
	Error string  `json:"error,omitempty"`
}

func runPing(ctx context.Context, w io.Writer, g *globalFlags, spec connect.Spec, protocol string, count int, timeout time.Duration, asJSON bool) error {
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: protocol})
	if err != nil {
		return err
	}
	defer srv.Close()
	var pings []pingResult
	failed := 0
	for range count {
		start := time.Now()
		err := mcp.Ping(ctx, srv.Session, timeout)
		p := pingResult{Ms: ms(time.Since(start))}
		if err != nil {
			p.Error, failed = err.Error(), failed+1
		}
		pings = append(pings, p)
		if ctx.Err() != nil {
			break
		}
	}
	var exit error
	if failed > 0 {
		exit = quietExit(ExitFailed)
	}
	peer := srv.Peer()
	if asJSON {
		out := struct {
			Server reportServer `json:"server"`
			Method string       `json:"method"`
			Pings  []pingResult `json:"pings"`
		}{serverOf(peer), mcp.PingMethod(srv.Session), pings}
		if err := writeJSON(w, out, out.Server.textWarnings()); err != nil {
			return err
		}
		return exit
	}
	fmt.Fprintf(w, "%s %s, protocol %s: %s\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version),
		termtext.Line(peer.ProtocolVersion), english.Plural(len(pings), "ping"))
	if m := mcp.PingMethod(srv.Session); m != "ping" {
		fmt.Fprintf(w, "(protocol %s has no ping: each is a %s)\n", termtext.Line(peer.ProtocolVersion), m)
	}
	for i, p := range pings {
		if p.Error != "" {
			fmt.Fprintf(w, "ping %d  failed after %s: %s\n", i+1, human(p.Ms), termtext.Line(p.Error))
			continue
		}
		fmt.Fprintf(w, "ping %d  %s\n", i+1, human(p.Ms))
	}
	return exit
}

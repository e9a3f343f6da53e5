package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// listenFlags are listen's own flags.
type listenFlags struct {
	tools, prompts, resources bool
	uris                      []string
	forDur                    time.Duration
	count                     int
	json, stderr              bool
	timeout                   time.Duration
	protocol                  string
	transcript                string
}

func newListenCommand(g *globalFlags) *cobra.Command {
	f := &listenFlags{}
	cmd := &cobra.Command{
		Use:   "listen [--tools] [--prompts] [--resources] [--resource URI]... [--for DUR] [--count N] [-- CMD ARGS...]",
		Short: "Follow a server's change notifications: list changes and resource updates",
		Long: `Follow what a server says changed, as it says it, until you stop.

In protocol 2026-07-28 a server sends change notifications only on a
subscriptions/listen request the client keeps open, naming what it opts in to:
--tools, --prompts and --resources for notifications/{tools,prompts,resources}/list_changed,
--resource URI (repeatable) for notifications/resources/updated of that resource. Without
any of them, mcpoke opts in to every list change the server declares (listChanged in its
capabilities). It prints the server's acknowledgement (what it agreed to; what it left out
it will not send) and each notification tagged with the listen's id, as it arrives.

It stops at ctrl-c, after --for DUR, or after --count N notifications, and cancels the
listen by the era's rule: over Streamable HTTP by closing its response stream (nothing is
sent), on stdio with notifications/cancelled. The server may end it first: with a response
(a graceful close), or with notifications/cancelled for the listen, the one use of that
notification a 2026-07-28 server may make. The last line says how it ended.

Before 2026-07-28 there is no subscriptions/listen: list changes come unasked (mcpoke
prints those you chose), and --resource sends resources/subscribe (resources/unsubscribe
when it stops). The output says so.

--json prints one JSON object per line (NDJSON): server, listen, acknowledged,
notification, violation, stderr and end events, server text escaped.

Exit codes: 0 when mcpoke stopped it or the server ended it cleanly; 1 when the listen
failed, the connection ended, or the server never acknowledged it; 2 bad usage, or nothing
to listen for; 130 after ctrl-c.`,
		Example: `  # The demo's ticker changes every 3 seconds: two updates, then stop
  mcpoke listen --resource demo://ticker --count 2

  # Every list change a server declares, for a minute, as NDJSON
  mcpoke listen --for 1m --json --url http://127.0.0.1:3001/mcp

  # The same in the 2025 era: resources/subscribe, and list changes unasked
  mcpoke listen --resource demo://ticker --count 1 --protocol 2025-11-25`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := noArgsBeforeDash("listen")(cmd, args); err != nil {
				return err
			}
			if f.count < 0 || f.forDur < 0 {
				return usageError("--count and --for must not be negative")
			}
			return nil
		},
		RunE: onServer(g, nil, func(cmd *cobra.Command, args []string, spec connect.Spec) error {
			return runListen(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, f)
		}),
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.tools, "tools", false, "opt in to notifications/tools/list_changed")
	fl.BoolVar(&f.prompts, "prompts", false, "opt in to notifications/prompts/list_changed")
	fl.BoolVar(&f.resources, "resources", false, "opt in to notifications/resources/list_changed")
	fl.StringArrayVar(&f.uris, "resource", nil, "opt in to notifications/resources/updated for URI (repeatable)")
	fl.DurationVar(&f.forDur, "for", 0, "stop after DUR (0: until ctrl-c)")
	fl.IntVar(&f.count, "count", 0, "stop after N notifications, the acknowledgement not counted (0: no limit)")
	fl.BoolVar(&f.json, "json", false, "print one JSON object per line (NDJSON), one per event")
	fl.BoolVar(&f.stderr, "stderr", false, "print the server's stderr lines as they come (what a stdio server logs)")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "bound on resources/subscribe and resources/unsubscribe (before 2026-07-28)")
	fl.StringVar(&f.transcript, "transcript", "", "write every frame in and out, as NDJSON, to FILE")
	protocolFlag(fl, &f.protocol)
	return cmd
}

// listenFilter is what the flags opt in to, or, when they name nothing,
// every list change the server declares.
func (f *listenFlags) listenFilter(caps mcp.ServerCapabilities) (filter mcp.ListenFilter, chosen bool) {
	filter = mcp.ListenFilter{ToolsListChanged: f.tools, PromptsListChanged: f.prompts, ResourcesListChanged: f.resources, ResourceSubscriptions: f.uris}
	if !filter.Empty() {
		return filter, true
	}
	return mcp.ListChangesOf(caps), false
}

// undeclared names what filter asks for that the server's capabilities
// do not offer.
func undeclared(filter mcp.ListenFilter, caps mcp.ServerCapabilities) []string {
	var out []string
	if filter.ToolsListChanged && (caps.Tools == nil || !caps.Tools.ListChanged) {
		out = append(out, "tools.listChanged")
	}
	if filter.PromptsListChanged && (caps.Prompts == nil || !caps.Prompts.ListChanged) {
		out = append(out, "prompts.listChanged")
	}
	if filter.ResourcesListChanged && (caps.Resources == nil || !caps.Resources.ListChanged) {
		out = append(out, "resources.listChanged")
	}
	if len(filter.ResourceSubscriptions) > 0 && (caps.Resources == nil || !caps.Resources.Subscribe) {
		out = append(out, "resources.subscribe")
	}
	return out
}

func runListen(ctx context.Context, stdout, stderr io.Writer, g *globalFlags, spec connect.Spec, f *listenFlags) error {
	var sub *session.Subscription
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: f.protocol, transcript: f.transcript,
		session: session.Config{SettleWindow: -1},
		started: func(c *connect.Conn) { sub = c.Session.Subscribe() }})
	if err != nil {
		return err
	}
	defer srv.Close()
	defer sub.Close()
	caps, err := mcp.ParseServerCapabilities(srv.Peer().Capabilities)
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("the server's capabilities: %w", err))
	}
	filter, chosen := f.listenFilter(caps)
	if filter.Empty() {
		return usageError("nothing to listen for: the server declares no list changes it notifies (listChanged in its capabilities); " +
			"choose with --tools, --prompts, --resources or --resource URI")
	}
	if missing := undeclared(filter, caps); chosen && len(missing) > 0 {
		also := "asking all the same (what it agrees to decides)"
		if !srv.Session.Era2026() {
			also = "listening all the same (nothing is asked before 2026-07-28: it may never send them)"
		}
		warn(stderr, fmt.Sprintf("the server does not declare %s; %s", joinList(missing), also))
	}
	l := newListenRun(stdout, f, srv, sub)
	l.printServer()
	if srv.Session.Era2026() {
		return l.modern(ctx, filter)
	}
	return l.legacy(ctx, filter, g.force, stderr)
}

// joinList is "a", "a and b", "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	out := items[0]
	for _, s := range items[1 : len(items)-1] {
		out += ", " + s
	}
	return out + " and " + items[len(items)-1]
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

func newTasksCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	var protocol string
	var within timeoutFlags
	cmd := &cobra.Command{
		Use:   "tasks [--json] [-- CMD ARGS...]",
		Short: "List a server's tasks (tasks/list)",
		Long: `List the tasks a server keeps (tasks/list, every page, MCP 2025-11-25): each task's
id, status, status message, when it was created and last updated, its ttl and poll
interval. Servers keep tasks per client, often per connection, so a server started
for this command usually has none: point it at a long-lived server (--url).
mcpoke call runs a task-augmented tool to its end; in the TUI, K lists the tasks.`,
		Example: `  # The tasks of a server over HTTP
  mcpoke tasks --url http://127.0.0.1:3001/mcp

  # As JSON, each task as the server sent it
  mcpoke tasks --json -- node server.js`,
		Args: noArgsBeforeDash("tasks"),
		RunE: onServer(g, within.checkTimeouts, func(cmd *cobra.Command, args []string, spec connect.Spec) error {
			return runTasks(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, protocol, asJSON, within)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"server": {...}, "tasks": [...]} as one JSON object`)
	protocolFlag(cmd.Flags(), &protocol)
	addTimeoutFlags(cmd.Flags(), &within, "each page of the list", "the whole list")
	return cmd
}

func runTasks(ctx context.Context, w, stderr io.Writer, g *globalFlags, spec connect.Spec, protocol string, asJSON bool, within timeoutFlags) error {
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: protocol})
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := mcp.TaskListAllowed(srv.Session); err != nil {
		return withCode(ExitUsage, fmt.Errorf("%w (--protocol 2025-11-25)", err))
	}
	if err := mcp.CheckDeclared(srv.Peer(), "tasks/list"); err != nil {
		if !g.force {
			return refusedUnlessForced(err)
		}
		warn(stderr, "the server did not declare tasks.list; sending tasks/list anyway (--force)")
	}
	list, err := mcp.ListTasks(ctx, srv.Session, within.listOptions(srv, g.force))
	if err != nil {
		return timedOut(err)
	}
	exit := func(err error) error {
		if err == nil && (list.Incomplete != nil || len(list.Malformed) > 0) {
			return quietExit(ExitFailed)
		}
		return err
	}
	cut := incomplete(stderr, list.Incomplete)
	for _, m := range list.Malformed {
		warn(stderr, "left out a task that is not a Task object: "+termtext.Line(m))
	}
	peer := srv.Peer()
	if asJSON {
		tasks := list.Raw
		if tasks == nil {
			tasks = []json.RawMessage{}
		}
		out := struct {
			Server    reportServer      `json:"server"`
			Tasks     []json.RawMessage `json:"tasks"` // each as the server sent it
			Malformed []string          `json:"malformed,omitempty"`
			// Incomplete says why the list was cut short, and where.
			Incomplete string `json:"incomplete,omitempty"`
		}{serverOf(peer), tasks, list.Malformed, cut}
		return exit(writeJSON(w, out, out.Server.textWarnings()))
	}
	fmt.Fprintf(w, "%s %s: %s\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version), english.Plural(len(list.Tasks), "task"))
	for _, t := range list.Tasks {
		line := termtext.Line(t.ID) + "  " + termtext.Line(t.Status)
		if t.StatusMessage != "" {
			line += "  " + termtext.Line(t.StatusMessage)
		}
		fmt.Fprintln(w, line)
		var facts []string
		if t.CreatedAt != "" {
			facts = append(facts, "created "+termtext.Line(t.CreatedAt))
		}
		if t.LastUpdatedAt != "" {
			facts = append(facts, "updated "+termtext.Line(t.LastUpdatedAt))
		}
		if t.TTL != nil {
			facts = append(facts, "ttl "+time.Duration(*t.TTL*float64(time.Millisecond)).String())
		} else {
			facts = append(facts, "ttl unlimited")
		}
		if d := t.PollEvery(); d > 0 {
			facts = append(facts, "poll every "+d.String())
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(facts, " · "))
	}
	return exit(nil)
}

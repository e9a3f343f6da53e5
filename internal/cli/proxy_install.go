package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

func newProxyInstallCommand(g *globalFlags, uninstall bool) *cobra.Command {
	var dryRun bool
	var mcpokePath, listen string
	use, short := "install", "Make a host start a server through mcpoke proxy (edits its config)"
	long := `Rewrite one server entry of a host's config so that the host starts it through
mcpoke proxy: the entry's command becomes mcpoke and its args "proxy --name NAME --"
followed by the original command line. Claude Desktop, Cursor, Claude Code (.mcp.json)
and VS Code (mcp.json, or "mcp" in settings.json) configs are understood; only the
entry's command and args change, and every comment, field and blank of the file
stays as it was. A config that does not parse is refused.

The change is shown as a diff, and the file is backed up beside itself
(FILE.mcpoke-backup-TIMESTAMP) before it is written. Installing twice changes
nothing; "mcpoke proxy uninstall" restores the original command line. Restart the
host (or reload its servers) afterwards.

An HTTP entry (one with a "url") is pointed at a proxy at --listen ADDR, with the
server's own path and query; its headers stay. The server's URL is kept in the url's
fragment (#mcpoke-proxy-upstream=...), which HTTP clients never send, so that
uninstall can restore it. The command that starts that proxy is printed: run it
(it must be running while the host uses the server).`
	if uninstall {
		use, short = "uninstall", "Undo mcpoke proxy install: the host starts the server directly again"
		long = `Restore a server entry that "mcpoke proxy install" rewrote: its command and args are
the original ones again. The change is shown as a diff and the file is backed up
first, as install does.`
	}
	cmd := &cobra.Command{
		Use:   use + " --config FILE --server NAME",
		Short: short,
		Long:  long,
		Example: `  mcpoke proxy install --config ~/.config/Claude/claude_desktop_config.json --server everything
  mcpoke proxy install --config .vscode/mcp.json --server remote --listen 127.0.0.1:8931
  mcpoke proxy uninstall --config .mcp.json --server everything`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.config == "" || g.server == "" {
				return usageError("proxy %s: give the host's config with --config FILE and the entry with --server NAME", use)
			}
			data, err := os.ReadFile(g.config)
			if err != nil {
				return usageError("proxy %s: %v", use, err)
			}
			var edit proxy.ConfigEdit
			if uninstall {
				edit, err = proxy.Uninstall(data, g.server)
			} else {
				if mcpokePath == "" {
					if mcpokePath, err = os.Executable(); err != nil {
						return withCode(ExitFailed, fmt.Errorf("proxy install: where is mcpoke? %w (give --mcpoke PATH)", err))
					}
				}
				edit, err = proxy.Install(data, g.server, mcpokePath, listen)
			}
			if err != nil {
				return usageError("proxy %s: %s: %v", use, g.config, err)
			}
			out := cmd.OutOrStdout()
			if edit.Unchanged != "" {
				fmt.Fprintf(out, "%s: nothing to change: %s\n", g.config, termtext.Line(edit.Unchanged))
				printProxyStart(cmd, edit)
				return nil
			}
			fmt.Fprint(out, termtext.Block(edit.Diff(g.config)))
			if dryRun {
				fmt.Fprintln(out, "(--dry-run: nothing written)")
				return nil
			}
			info, err := os.Stat(g.config)
			if err != nil {
				return withCode(ExitFailed, err)
			}
			backup := g.config + ".mcpoke-backup-" + time.Now().UTC().Format("20060102T150405.000Z")
			if err := os.WriteFile(backup, data, info.Mode().Perm()); err != nil {
				return withCode(ExitFailed, fmt.Errorf("proxy %s: backup: %w; the config was not changed", use, err))
			}
			if err := os.WriteFile(g.config, edit.New, info.Mode().Perm()); err != nil {
				return withCode(ExitFailed, fmt.Errorf("proxy %s: %w; the original is in %s", use, err, backup))
			}
			fmt.Fprintf(out, "Written %s (backup: %s). Restart the host, or reload its MCP servers.\n", g.config, filepath.Base(backup))
			printProxyStart(cmd, edit)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show the change, write nothing")
	if !uninstall {
		cmd.Flags().StringVar(&listen, "listen", "", "for an HTTP entry: the proxy's address, host:port on loopback (e.g. 127.0.0.1:8931)")
		cmd.Flags().StringVar(&mcpokePath, "mcpoke", "", "the mcpoke the host runs (default: this one's absolute path; hosts often lack your PATH)")
	}
	return cmd
}

// printProxyStart says how to start the proxy an HTTP entry points at.
func printProxyStart(cmd *cobra.Command, edit proxy.ConfigEdit) {
	if edit.Start != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "The host now reaches the server through a proxy; start it with:\n  %s\n", termtext.Line(edit.Start))
	}
}

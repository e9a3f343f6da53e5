package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
)

func newDemoServerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   connect.DemoServerArg,
		Short: "Run the built-in demo MCP server on stdin and stdout",
		Long: `Run the built-in demo MCP server over stdio, as any MCP client would start it.
mcpoke starts it by itself when no server is given. Its log, including every
cancellation it receives (request id, tool, reason, how long the work had run),
goes to stderr.

Tools:
  sleep     {seconds=10, steps=10}        progress each step; stops when cancelled, no response
  stubborn  {seconds=5}                   ignores cancellation and answers anyway: a late response
  flood     {count=10000, interval_ms=0}  a burst of progress notifications, then a result
  echo      {text}                        answers at once with the text
  fail      {mode=tool-error|rpc-error}   an isError result, or a JSON-RPC error`,
		Example: `  # Use it from another client's config
  {"mcpServers": {"mcpoke-demo": {"command": "mcpoke", "args": ["demo-server"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Serve ends with stdin; a signal ends the process sooner.
			done := make(chan error, 1)
			go func() { done <- demo.Serve(os.Stdin, os.Stdout, os.Stderr) }()
			select {
			case err := <-done:
				return err
			case <-cmd.Context().Done():
				return nil
			}
		},
	}
}

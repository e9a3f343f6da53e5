package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/otelspan"
)

// demoServerFlags choose the demo server's transports.
type demoServerFlags struct {
	http, sse   string
	allowRemote bool
	conformance bool
	oauth       bool
}

func newDemoServerCommand() *cobra.Command {
	var f demoServerFlags
	cmd := &cobra.Command{
		Use:   connect.DemoServerArg,
		Short: "Run the built-in demo MCP server on stdin and stdout, or over HTTP",
		Long: `Run the built-in demo MCP server over stdio, as any MCP client would start it.
mcpoke starts it by itself when no server is given. Its log, including every
cancellation it receives (request id, tool, reason, how long the work had run),
goes to stderr.

With --http it serves Streamable HTTP at http://ADDR/mcp in both eras: protocol
2026-07-28 (each request on its own; closing its stream cancels it) and
2025-03-26 to 2025-11-25, with sessions, the GET stream and resumable streams; with
--sse the legacy HTTP+SSE transport (2024-11-05) at http://ADDR/sse. Both may
be given. Port 0 picks a free port; the URL is printed on stderr. Only
loopback addresses are served unless --allow-remote; requests from pages of
other sites (Origin) are refused either way. There is no authentication.

Tools:
  sleep     {seconds=10, steps=10}        progress each step; stops when cancelled, no response
  stubborn  {seconds=5}                   ignores cancellation and answers anyway: a late response
  flood     {count=10000, interval_ms=0}  a burst of progress notifications, then a result
  echo      {text}                        answers at once with the text
  fail      {mode=tool-error|rpc-error}   an isError result, or a JSON-RPC error
  ask       {kind=elicitation, cancel_after=0, message}
                                          asks the client (sampling, a form or a url) and may
                                          cancel its own request; input_required in 2026-07-28
  roots     {}                            asks the client for its roots and lists them
  research  {seconds=5}                   runs as a task; stops on tasks/cancel

Resources (demo://...), a template with completion and a prompt with
arguments are served too: mcpoke resources, mcpoke prompts.`,
		Example: `  # Use it from another client's config
  {"mcpServers": {"mcpoke-demo": {"command": "mcpoke", "args": ["demo-server"]}}}

  # Serve it over HTTP, then poke it
  mcpoke demo-server --http 127.0.0.1:8080
  mcpoke --url http://127.0.0.1:8080/mcp

  # Try the OAuth login against a toy authorization server
  mcpoke demo-server --http 127.0.0.1:8080 --oauth
  mcpoke auth login --url http://127.0.0.1:8080/mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.oauth && f.http == "" {
				return usageError("--oauth goes with --http (it protects the Streamable HTTP endpoint)")
			}
			if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
				// A span per handled request, ended when the work stops.
				exp, err := otelspan.New(otelspan.Options{ServiceName: "mcpoke-demo"})
				if err != nil {
					return err
				}
				defer exp.Close()
				demo.Instrument(exp.Tracer())
			}
			if f.http != "" || f.sse != "" {
				return serveDemoHTTP(cmd.Context(), cmd.ErrOrStderr(), f)
			}
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
	cmd.Flags().StringVar(&f.http, "http", "", "serve Streamable HTTP at `ADDR` (host:port) on path /mcp")
	cmd.Flags().StringVar(&f.sse, "sse", "", "serve the legacy HTTP+SSE transport at `ADDR` on paths /sse and /messages")
	cmd.Flags().BoolVar(&f.oauth, "oauth", false, "with --http: require an OAuth login on /mcp, from a toy authorization server on the same address that approves every login")
	cmd.Flags().BoolVar(&f.allowRemote, "allow-remote", false, "allow an address other machines can reach (no authentication!)")
	cmd.Flags().BoolVar(&f.conformance, "conformance-tools", false,
		"over HTTP, add the fixtures the official MCP conformance suite calls by name: test_* tools (text, image, audio, "+
			"embedded and mixed content, errors, progress, logging, a resumed stream, sampling and forms in 2025-11-25, "+
			"input_required in 2026-07-28), json_schema_2020_12_tool, test:// resources and test_* prompts")
	return cmd
}

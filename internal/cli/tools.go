package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

func newToolsCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	var protocol string
	cmd := &cobra.Command{
		Use:   "tools [--json] [-- CMD ARGS...]",
		Short: "List a server's tools with their arguments",
		Long: `List the tools a server offers (tools/list, every page), with each tool's
arguments from its inputSchema: type, default, and whether it is required (*).
--json prints the tools exactly as the server sent them, with full schemas.`,
		Example: `  # The built-in demo server's tools
  mcpoke tools

  # The reference server's, as JSON
  mcpoke tools --json -- npx -y @modelcontextprotocol/server-everything | jq '.tools[].name'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if n := toolArgCount(cmd, args); n > 0 {
				return usageError("unexpected argument %s: put the server command after --, e.g. mcpoke tools -- node server.js", quote(args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runTools(cmd.Context(), cmd.OutOrStdout(), g, spec, protocol, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"server": {...}, "tools": [...]} as one JSON object`)
	cmd.Flags().StringVar(&protocol, "protocol", "", "protocol VERSION to offer in initialize")
	return cmd
}

func runTools(ctx context.Context, w io.Writer, g *globalFlags, spec connect.Spec, protocol string, asJSON bool) error {
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: protocol})
	if err != nil {
		return err
	}
	defer srv.Close()
	tools, err := listTools(ctx, srv.Session)
	if err != nil {
		return err
	}
	if asJSON {
		raw := make([]json.RawMessage, len(tools))
		for i, t := range tools {
			raw[i] = t.raw
		}
		out := struct {
			Server reportServer      `json:"server"`
			Tools  []json.RawMessage `json:"tools"`
		}{reportServer{srv.peer.ServerInfo.Name, srv.peer.ServerInfo.Version, srv.peer.ProtocolVersion}, raw}
		return json.NewEncoder(w).Encode(out)
	}
	fmt.Fprintf(w, "%s %s: %d tools\n", termtext.Line(srv.peer.ServerInfo.Name), termtext.Line(srv.peer.ServerInfo.Version), len(tools))
	for _, t := range tools {
		printTool(w, t)
	}
	return nil
}

// printTool shows one tool: name, title, description, and a line per
// argument.
func printTool(w io.Writer, t tool) {
	fmt.Fprintf(w, "\n%s", termtext.Line(t.Name))
	if t.Title != "" && t.Title != t.Name {
		fmt.Fprintf(w, " — %s", termtext.Line(t.Title))
	}
	fmt.Fprintln(w)
	if t.Description != "" {
		fmt.Fprintf(w, "  %s\n", termtext.Line(firstParagraph(t.Description)))
	}
	var schema struct {
		Properties map[string]struct {
			Type        any             `json:"type"`
			Description string          `json:"description"`
			Default     json.RawMessage `json:"default"`
			Enum        []any           `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(t.InputSchema, &schema)
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := schema.Properties[n]
		mark := " "
		if slices.Contains(schema.Required, n) {
			mark = "*"
		}
		typ := fmt.Sprint(p.Type)
		if p.Type == nil {
			typ = "any"
		}
		if len(p.Enum) > 0 {
			enum, _ := json.Marshal(p.Enum)
			typ = "one of " + string(enum)
		}
		desc := termtext.Line(firstParagraph(p.Description))
		if p.Default != nil {
			desc = strings.TrimSpace(desc + " (default " + compactJSON(p.Default) + ")")
		}
		fmt.Fprintf(w, "  %s %-14s %-10s %s\n", mark, termtext.Line(n), termtext.Line(typ), termtext.Line(desc))
	}
}

// firstParagraph keeps long, multi-paragraph descriptions to one line.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

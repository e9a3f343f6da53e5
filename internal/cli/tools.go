package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

func newToolsCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	var protocol string
	var within timeoutFlags
	cmd := &cobra.Command{
		Use:   "tools [--json] [-- CMD ARGS...]",
		Short: "List a server's tools with their arguments",
		Long: `List the tools a server offers (tools/list, every page), with each tool's
arguments from its inputSchema: type, default, and whether it is required (*).
A tool that hides text (invisible characters a model reads, such as tag characters)
is flagged with how many, in which fields, and what they spell.
--json prints the tools as the server sent them, with full schemas (control, bidi and
invisible characters as \u escapes, which decode to the same text), and hiddenText.`,
		Example: `  # The built-in demo server's tools
  mcpoke tools

  # The reference server's, as JSON
  mcpoke tools --json -- npx -y @modelcontextprotocol/server-everything | jq '.tools[].name'`,
		Args: noArgsBeforeDash("tools"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := within.checkTimeouts(); err != nil {
				return err
			}
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runTools(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, protocol, asJSON, within)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"server": {...}, "tools": [...]} as one JSON object`)
	protocolFlag(cmd.Flags(), &protocol)
	addTimeoutFlags(cmd.Flags(), &within, "each page of the list", "the whole list")
	return cmd
}

func runTools(ctx context.Context, w, stderr io.Writer, g *globalFlags, spec connect.Spec, protocol string, asJSON bool, within timeoutFlags) error {
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: protocol})
	if err != nil {
		return err
	}
	defer srv.Close()
	peer := srv.Peer()
	var tools []mcp.Tool
	var cut string
	hiding := 0
	// In text, a long list is printed as its pages come.
	ps := &pageStream[mcp.Tool]{
		head: func() {
			fmt.Fprintf(w, "%s %s: tools, page by page\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version))
			fmt.Fprintln(w, declaredLine(srv))
		},
		each: func(t mcp.Tool) {
			if t.Hidden.Found() {
				hiding++
			}
			printTool(w, t)
		}}
	if asJSON {
		tools, cut, err = listTools(ctx, srv, stderr, g.force, within)
	} else {
		_, cut, err = listToolsPaged(ctx, srv, stderr, g.force, within, ps.page)
		tools = ps.kept
	}
	if err != nil {
		return err
	}
	// A list cut short is printed, but the exit status says it is not all.
	exit := func(err error) error {
		if err == nil && cut != "" {
			return quietExit(ExitFailed)
		}
		return err
	}
	if ps.streaming {
		more := ""
		if hiding > 0 {
			more = fmt.Sprintf(", %d with hidden text", hiding)
		}
		ps.tail(w, "tool", more)
		return exit(nil)
	}
	if asJSON {
		out := struct {
			Server       reportServer     `json:"server"`
			Capabilities declaredBothWays `json:"capabilities"`
			Tools        []mcp.Tool       `json:"tools"` // each as the server sent it
			Hidden       []toolHidden     `json:"hiddenText,omitempty"`
			// Incomplete says why the list was cut short, and where.
			Incomplete string `json:"incomplete,omitempty"`
		}{serverOf(peer), declaredOf(srv), tools, hiddenOf(tools), cut}
		return exit(writeJSON(w, out, out.Server.textWarnings()))
	}
	head := fmt.Sprintf("%s %s: %s", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version), english.Plural(len(tools), "tool"))
	if n := countHiding(tools); n > 0 {
		head += fmt.Sprintf(", %d with hidden text", n)
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, declaredLine(srv))
	for _, t := range tools {
		printTool(w, t)
	}
	return exit(nil)
}

// printTool shows one tool: name, title, description, and a line per
// argument in the schema's order (the order the UI's form shows).
func printTool(w io.Writer, t mcp.Tool) {
	fmt.Fprintf(w, "\n%s", termtext.Line(t.Name))
	if t.Title != "" && t.Title != t.Name {
		fmt.Fprintf(w, " — %s", termtext.Line(t.Title))
	}
	fmt.Fprintln(w)
	printHidden(w, t.Hidden)
	if ts := t.TaskSupport(); ts != mcp.TaskForbidden {
		fmt.Fprintf(w, "  runs as a task: %s (taskSupport)\n", ts)
	}
	if t.Description != "" {
		fmt.Fprintf(w, "  %s\n", termtext.Line(firstParagraph(t.Description)))
	}
	for _, p := range t.Input.Properties {
		mark := " "
		if p.Required {
			mark = "*"
		}
		desc := termtext.Line(firstParagraph(p.Description))
		if p.Default != nil {
			desc = strings.TrimSpace(desc + " (default " + compactJSON(p.Default) + ")")
		}
		fmt.Fprintf(w, "  %s %-14s %-10s %s\n", mark, termtext.Line(p.Name), termtext.Line(typeText(p)), termtext.Line(desc))
	}
}

// typeText says what an argument takes: "string", "[string null]",
// "one of [\"a\",\"b\"]", or "any".
func typeText(p mcp.Property) string {
	if len(p.Enum) > 0 {
		vals := make([]string, len(p.Enum))
		for i, v := range p.Enum {
			vals[i] = compactJSON(v)
		}
		return "one of [" + strings.Join(vals, ",") + "]"
	}
	switch len(p.Type) {
	case 0:
		return "any"
	case 1:
		return p.Type[0]
	}
	return fmt.Sprint(p.Type)
}

// firstParagraph keeps long, multi-paragraph descriptions to one line.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

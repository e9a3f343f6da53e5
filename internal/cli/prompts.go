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
	"github.com/mcpoke/mcpoke/internal/suggest"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

func newPromptsCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	var protocol string
	var within timeoutFlags
	cmd := &cobra.Command{
		Use:   "prompts [--json] [-- CMD ARGS...]",
		Short: "List a server's prompts with their arguments",
		Long: `List the prompts a server offers (prompts/list, every page), each with its
arguments (* marks the required ones). Get one with mcpoke prompt NAME --args JSON.
--json prints the prompts as the server sent them.`,
		Example: `  # The built-in demo server's prompts
  mcpoke prompts

  # The reference server's, as JSON
  mcpoke prompts --json -- npx -y @modelcontextprotocol/server-everything | jq '.prompts[].name'`,
		Args: noArgsBeforeDash("prompts"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := within.checkTimeouts(); err != nil {
				return err
			}
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runPrompts(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, protocol, asJSON, within)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"server": {...}, "prompts": [...]} as one JSON object`)
	protocolFlag(cmd.Flags(), &protocol)
	addTimeoutFlags(cmd.Flags(), &within, "each page of the list", "the whole list")
	return cmd
}

// listPrompts returns every prompt; complete says whether the list was
// whole (see listTools).
func listPrompts(ctx context.Context, srv *connect.Conn, stderr io.Writer, force bool, within timeoutFlags) ([]mcp.Prompt, string, error) {
	return listPromptsPaged(ctx, srv, stderr, force, within, nil)
}

// listPromptsPaged is listPrompts handing each page to page as it is
// read, when page is set: the prompts are then page's to keep.
func listPromptsPaged(ctx context.Context, srv *connect.Conn, stderr io.Writer, force bool, within timeoutFlags, page func([]mcp.Prompt, bool)) ([]mcp.Prompt, string, error) {
	if err := checkDeclared(srv, "prompts/list", stderr, force); err != nil {
		return nil, "", err
	}
	var list mcp.PromptList
	var err error
	if page == nil {
		list, err = mcp.ListPrompts(ctx, srv.Session, within.listOptions(srv, force))
	} else {
		list, err = mcp.StreamPrompts(ctx, srv.Session, within.listOptions(srv, force), page)
	}
	if err != nil {
		return nil, "", timedOut(err)
	}
	return list.Prompts, incomplete(stderr, list.Incomplete), nil
}

func runPrompts(ctx context.Context, w, stderr io.Writer, g *globalFlags, spec connect.Spec, protocol string, asJSON bool, within timeoutFlags) error {
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: protocol})
	if err != nil {
		return err
	}
	defer srv.Close()
	peer := srv.Peer()
	var prompts []mcp.Prompt
	var cut string
	// In text, a long list is printed as its pages come.
	ps := &pageStream[mcp.Prompt]{
		head: func() {
			fmt.Fprintf(w, "%s %s: prompts, page by page\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version))
		},
		each: func(p mcp.Prompt) { printPrompt(w, p) }}
	if asJSON {
		prompts, cut, err = listPrompts(ctx, srv, stderr, g.force, within)
	} else {
		_, cut, err = listPromptsPaged(ctx, srv, stderr, g.force, within, ps.page)
		prompts = ps.kept
	}
	if err != nil {
		return err
	}
	exit := func(err error) error {
		if err == nil && cut != "" {
			return quietExit(ExitFailed)
		}
		return err
	}
	if ps.streaming {
		ps.tail(w, "prompt", "")
		return exit(nil)
	}
	if asJSON {
		out := struct {
			Server  reportServer `json:"server"`
			Prompts []mcp.Prompt `json:"prompts"`
			// Incomplete says why the list was cut short, and where.
			Incomplete string `json:"incomplete,omitempty"`
		}{serverOf(peer), orEmpty(prompts), cut}
		return exit(writeJSON(w, out, out.Server.textWarnings()))
	}
	fmt.Fprintf(w, "%s %s: %s\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version),
		english.Plural(len(prompts), "prompt"))
	for _, p := range prompts {
		printPrompt(w, p)
	}
	return exit(nil)
}

// printPrompt shows one prompt and a line per argument.
func printPrompt(w io.Writer, p mcp.Prompt) {
	printEntry(w, p.Name, p.Title, "", p.Hidden, p.Description, "")
	for _, a := range p.Arguments {
		mark := " "
		if a.Required {
			mark = "*"
		}
		desc := a.Description
		if desc == "" {
			desc = a.Title
		}
		fmt.Fprintf(w, "  %s %-14s %s\n", mark, termtext.Line(a.Name), termtext.Line(firstParagraph(desc)))
	}
}

// promptFlags are prompt's own flags, besides the request flags.
type promptFlags struct {
	callFlags
}

func newPromptCommand(g *globalFlags) *cobra.Command {
	f := &promptFlags{}
	cmd := &cobra.Command{
		Use:   "prompt NAME [--args JSON] [flags] [-- CMD ARGS...]",
		Short: "Get a prompt, optionally cancel it, and report what happened",
		Long: `Get one prompt (prompts/get) with its arguments and report its whole life like call
does for a tool: progress, the messages or error, and when cancelled (--cancel-after) or
timed out (--timeout), the cancellation and any traffic after it (--wait-late).

--args is a JSON object of strings (prompt arguments are strings); they are checked
against the prompt's arguments (prompts/list) before anything is sent.

` + exitCodesHelp,
		Example: `  # A prompt of the built-in demo server, with its arguments
  mcpoke prompt review --args '{"code":"x := 1","language":"go"}'

  # A slow one, cancelled (exit status 3)
  mcpoke prompt slow --cancel-after 1s`,
		Args: oneArgBeforeDash("prompt", "prompt NAME", "NAME", "prompts"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runPrompt(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.args, "args", "", "prompt arguments as a JSON OBJECT of strings")
	fl.BoolVar(&f.unlisted, "unlisted", false, "get the prompt without listing prompts first nor checking --args")
	addRequestFlags(fl, &f.callFlags, "prompt")
	return cmd
}

func runPrompt(ctx context.Context, stdout, stderr io.Writer, g *globalFlags, spec connect.Spec, name string, f *promptFlags) error {
	args, err := parseArgs(f.args)
	if err != nil {
		return err
	}
	if _, err := mcp.GetPromptParams(name, args); err != nil {
		return usageError("--args: %v", err)
	}
	run, err := openRequestRun(ctx, g, spec, &f.callFlags, "prompts/get")
	if err != nil {
		return err
	}
	defer run.srv.Close()
	if err := checkDeclared(run.srv, "prompts/get", stderr, g.force); err != nil {
		return err
	}
	if !f.unlisted {
		prompts, _, err := listPrompts(ctx, run.srv, stderr, g.force, f.timeoutFlags)
		if err != nil {
			return err
		}
		p, err := findPrompt(prompts, name, run.srv.Peer().ServerInfo.Name)
		if err != nil {
			return err
		}
		if err := p.ArgumentsTool().Schema.Validate(args); err != nil {
			return usageError("arguments for prompt %s do not match its arguments: %v", quote(p.Name), err)
		}
	}
	params, err := mcp.GetPromptParams(name, args)
	if err != nil {
		return usageError("--args: %v", err)
	}
	return run.send(ctx, stdout, plainRequest(run.srv.Session, "prompts/get", params), nil)
}

// findPrompt returns the prompt called name, or a usage error that names
// the close matches.
func findPrompt(prompts []mcp.Prompt, name, server string) (mcp.Prompt, error) {
	names := make([]string, len(prompts))
	for i, p := range prompts {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	msg := fmt.Sprintf("unknown prompt %s on %s", quote(name), quote(server))
	switch near := suggest.Closest(name, names, 3); {
	case len(near) > 0:
		msg += "; did you mean " + strings.Join(lines(near), " or ") + "?"
	case len(names) == 0:
		msg += "; it has no prompts"
	case len(names) <= 12:
		msg += "; its prompts: " + strings.Join(lines(names), ", ")
	default:
		msg += "; run mcpoke prompts to list them"
	}
	return mcp.Prompt{}, usageError("%s", msg)
}

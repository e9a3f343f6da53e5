package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/toolresult"
	"github.com/mcpoke/mcpoke/session"
)

func newResourcesCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	var protocol string
	var within timeoutFlags
	cmd := &cobra.Command{
		Use:   "resources [--json] [-- CMD ARGS...]",
		Short: "List a server's resources and resource templates",
		Long: `List the resources a server offers (resources/list, every page) and its resource
templates (resources/templates/list), each with its URI, title, MIME type and size, and
for a template the variables it takes. Read one with mcpoke read URI; fill a template
with mcpoke read TEMPLATE --vars JSON.
--json prints both lists as the server sent them.`,
		Example: `  # The built-in demo server's resources
  mcpoke resources

  # The reference server's, as JSON
  mcpoke resources --json -- npx -y @modelcontextprotocol/server-everything | jq '.resources[].uri'`,
		Args: noArgsBeforeDash("resources"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := within.checkTimeouts(); err != nil {
				return err
			}
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runResources(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, protocol, asJSON, within)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"server": {...}, "resources": [...], "resourceTemplates": [...]} as one JSON object`)
	protocolFlag(cmd.Flags(), &protocol)
	addTimeoutFlags(cmd.Flags(), &within, "each page of the list", "the whole list")
	return cmd
}

// noArgsBeforeDash refuses arguments before --, where only the server
// command may go.
// checkDeclared refuses, exit 2, a method whose capability the server
// did not declare, unless --force: then it warns and goes ahead.
func checkDeclared(srv *connect.Conn, method string, stderr io.Writer, force bool) error {
	err := mcp.CheckDeclared(srv.Peer(), method)
	if err == nil {
		return nil
	}
	if !force {
		return refusedUnlessForced(err)
	}
	warn(stderr, fmt.Sprintf("sending %s anyway (--force): %v", method, err))
	return nil
}

func runResources(ctx context.Context, w, stderr io.Writer, g *globalFlags, spec connect.Spec, protocol string, asJSON bool, within timeoutFlags) error {
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: protocol})
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := checkDeclared(srv, "resources/list", stderr, g.force); err != nil {
		return err
	}
	opts := within.listOptions(srv, g.force)
	peer := srv.Peer()
	// In text, a long list is printed as its pages come.
	ps := &pageStream[mcp.Resource]{
		head: func() {
			fmt.Fprintf(w, "%s %s: resources, page by page\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version))
		},
		each: func(r mcp.Resource) {
			printEntry(w, r.URI, r.Title, r.Name, r.Hidden, r.Description, mimeAndSize(r.MimeType, r.Size))
		}}
	var list mcp.ResourceList
	if asJSON {
		list, err = mcp.ListResources(ctx, srv.Session, opts)
	} else {
		list, err = mcp.StreamResources(ctx, srv.Session, opts, ps.page)
		list.Resources = ps.kept
	}
	if err != nil {
		return timedOut(err)
	}
	var cut []string // why either list was cut short
	if why := incomplete(stderr, list.Incomplete); why != "" {
		cut = append(cut, why)
	}
	// Templates are optional: a server without them answers -32601,
	// which is no reason to hide its resources.
	templates, err := mcp.ListResourceTemplates(ctx, srv.Session, opts)
	var templatesErr string
	var rpcErr *session.RPCError
	switch {
	case errors.As(err, &rpcErr) && rpcErr.Code == session.CodeMethodNotFound:
		templatesErr = "the server has no resources/templates/list"
	case err != nil:
		templatesErr = err.Error()
		warn(stderr, templatesErr)
		cut = append(cut, templatesErr)
	case templates.Incomplete != nil:
		cut = append(cut, incomplete(stderr, templates.Incomplete))
	}
	exit := func(err error) error {
		if err == nil && len(cut) > 0 {
			return quietExit(ExitFailed)
		}
		return err
	}
	if asJSON {
		out := struct {
			Server       reportServer           `json:"server"`
			Resources    []mcp.Resource         `json:"resources"`
			Templates    []mcp.ResourceTemplate `json:"resourceTemplates"`
			TemplatesErr string                 `json:"templatesError,omitempty"`
			// Incomplete says why a list was cut short, and where.
			Incomplete string `json:"incomplete,omitempty"`
		}{serverOf(peer), orEmpty(list.Resources), orEmpty(templates.Templates), templatesErr, strings.Join(cut, "; ")}
		return exit(writeJSON(w, out, out.Server.textWarnings()))
	}
	if ps.streaming {
		ps.tail(w, "resource", ", "+english.Plural(len(templates.Templates), "template"))
	} else {
		fmt.Fprintf(w, "%s %s: %s, %s\n", termtext.Line(peer.ServerInfo.Name), termtext.Line(peer.ServerInfo.Version),
			english.Plural(len(list.Resources), "resource"), english.Plural(len(templates.Templates), "template"))
		for _, r := range list.Resources {
			ps.each(r)
		}
	}
	if len(templates.Templates) > 0 {
		fmt.Fprintln(w, "\ntemplates (mcpoke read TEMPLATE --vars JSON fills one)")
	}
	for _, t := range templates.Templates {
		printEntry(w, t.URITemplate, t.Title, t.Name, t.Hidden, t.Description, mimeAndSize(t.MimeType, nil))
		switch {
		case t.VariablesErr != nil:
			fmt.Fprintf(w, "  variables: cannot be read: %s\n", termtext.Line(t.VariablesErr.Error()))
		case len(t.Variables) > 0:
			fmt.Fprintf(w, "  variables: %s\n", strings.Join(lines(t.Variables), ", "))
		}
	}
	return exit(nil)
}

// orEmpty makes a nil list an empty one, so --json never says null.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// printEntry shows one resource, template or prompt: what names it, its
// title (or name, when different), a note such as its MIME type, any
// hidden text, and the first paragraph of its description.
func printEntry(w io.Writer, id, title, name string, hidden mcp.HiddenText, description, note string) {
	fmt.Fprintf(w, "\n%s", termtext.Line(id))
	switch {
	case title != "" && title != id:
		fmt.Fprintf(w, " — %s", termtext.Line(title))
	case name != "" && name != id:
		fmt.Fprintf(w, " — %s", termtext.Line(name))
	}
	if note != "" {
		fmt.Fprintf(w, "  (%s)", note)
	}
	fmt.Fprintln(w)
	printHidden(w, hidden)
	if description != "" {
		fmt.Fprintf(w, "  %s\n", termtext.Line(firstParagraph(description)))
	}
}

// mimeAndSize says "text/plain, 1.2 KB", what of it is known.
func mimeAndSize(mime string, size *int64) string {
	var parts []string
	if mime != "" {
		parts = append(parts, termtext.Line(mime))
	}
	if size != nil {
		parts = append(parts, toolresult.ByteSize(int(*size)))
	}
	return strings.Join(parts, ", ")
}

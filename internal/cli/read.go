package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/savefile"
	"github.com/mcpoke/mcpoke/internal/toolresult"
	"github.com/mcpoke/mcpoke/session"
)

// readFlags are read's own flags, besides the request flags.
type readFlags struct {
	callFlags
	vars string
	out  string
}

func newReadCommand(g *globalFlags) *cobra.Command {
	f := &readFlags{}
	cmd := &cobra.Command{
		Use:   "read URI [flags] [-- CMD ARGS...]",
		Short: "Read a resource, optionally cancel the read, and report what happened",
		Long: `Read one resource (resources/read) and report its whole life like call does for a
tool: progress, the contents or error, and when cancelled (--cancel-after) or timed out
(--timeout), the cancellation and any traffic after it (--wait-late).

Text contents are shown escaped; binary contents (blob) as their MIME type and size:
--out FILE saves the contents (the decoded bytes of a blob) to FILE, a new file:
an existing FILE is refused (exit 2) unless --force, which replaces a regular file;
a symbolic link is never written through, dangling or not. A resource
template is filled with --vars, a JSON object of strings (RFC 6570 expansion).

` + exitCodesHelp,
		Example: `  # A text resource of the built-in demo server
  mcpoke read demo://readme

  # A slow one, cancelled after a second (exit status 3)
  mcpoke read demo://slow --cancel-after 1s

  # Binary contents, saved to a file
  mcpoke read demo://logo.png --out logo.png

  # A template, filled in
  mcpoke read 'demo://greeting/{lang}/{name}' --vars '{"lang":"fr","name":"Ada"}'`,
		Args: oneArgBeforeDash("read", "resource URI", "URI", "resources"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			uri, err := fillTemplate(args[0], f.vars)
			if err != nil {
				return err
			}
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runRead(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, uri, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.vars, "vars", "", "fill the URI template with these variables, a JSON OBJECT of strings")
	fl.StringVar(&f.out, "out", "", "save the contents to FILE, a new file (--force replaces a regular one; never through a symlink); a blob's decoded bytes, the first item when there are several")
	addRequestFlags(fl, &f.callFlags, "read")
	return cmd
}

// fillTemplate expands uri as a URI template with vars, a JSON object of
// strings; without vars, uri is used as it is.
func fillTemplate(uri, vars string) (string, error) {
	if strings.TrimSpace(vars) == "" {
		return uri, nil
	}
	var values map[string]string
	if err := json.Unmarshal([]byte(vars), &values); err != nil {
		return "", usageError(`--vars must be a JSON object of strings, like '{"name":"Ada"}': %v`, err)
	}
	names, err := mcp.TemplateVariables(uri)
	if err != nil {
		return "", usageError("%v", err)
	}
	for k := range values {
		if !slices.Contains(names, k) {
			return "", usageError("--vars: the template %s has no variable %s; its variables: %s", quote(uri), quote(k), strings.Join(names, ", "))
		}
	}
	filled, err := mcp.ExpandTemplate(uri, values)
	if err != nil {
		return "", usageError("%v", err)
	}
	return filled, nil
}

func runRead(ctx context.Context, stdout, stderr io.Writer, g *globalFlags, spec connect.Spec, uri string, f *readFlags) error {
	if f.out != "" {
		// Refused before anything starts; Write checks again when saving.
		if err := savefile.Check(f.out, g.force); err != nil {
			return usageError("--out: %v", err)
		}
	}
	run, err := openRequestRun(ctx, g, spec, &f.callFlags, "resources/read")
	if err != nil {
		return err
	}
	defer run.srv.Close()
	if err := checkDeclared(run.srv, "resources/read", stderr, g.force); err != nil {
		return err
	}
	var after func(*callReport) error
	if f.out != "" {
		after = func(rep *callReport) error {
			rep.Saved = saveContents(rep, f.out, g.force)
			return nil
		}
	}
	return run.send(ctx, stdout, plainRequest(run.srv.Session, "resources/read", mcp.ReadResourceParams(uri)), after)
}

// reportSaved says what read --out wrote, or why it wrote nothing.
type reportSaved struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	// Of is how many items the contents had; only the first is saved.
	Of    int    `json:"of"`
	Error string `json:"error,omitempty"`
}

// saveContents writes the first item of a completed read to path with
// savefile.ReadContents, the TUI's save too.
func saveContents(rep *callReport, path string, overwrite bool) *reportSaved {
	s := &reportSaved{Path: path}
	if rep.State != session.Completed.String() {
		s.Error = "nothing to save: the read ended " + rep.State
		return s
	}
	saved, err := savefile.ReadContents(rep.Result, path, overwrite)
	s.Of = saved.Of
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Bytes = saved.Bytes
	return s
}

// savedLine says where read --out saved the contents.
func savedLine(s *reportSaved) string {
	if s.Error != "" {
		return "nothing saved to " + s.Path + ": " + s.Error
	}
	text := fmt.Sprintf("%s to %s", toolresult.ByteSize(s.Bytes), s.Path)
	if s.Of > 1 {
		text += fmt.Sprintf(" (the first of %d items)", s.Of)
	}
	return text
}

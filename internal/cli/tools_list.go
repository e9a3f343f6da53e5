package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/suggest"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// listTools returns every tool the server has. A list cut short (a
// repeated cursor, too many pages, more than mcpoke keeps) is used as it
// is, with a warning; cut says why ("" when it was whole). A server that did not declare tools
// is sent nothing, exit 2, unless force (--force): then a warning says so.
func listTools(ctx context.Context, srv *connect.Conn, stderr io.Writer, force bool, t timeoutFlags) (tools []mcp.Tool, cut string, err error) {
	return listToolsPaged(ctx, srv, stderr, force, t, nil)
}

// listToolsPaged is listTools handing each page to page as it is read,
// when page is set: the tools are then page's to keep.
func listToolsPaged(ctx context.Context, srv *connect.Conn, stderr io.Writer, force bool, t timeoutFlags, page func([]mcp.Tool, bool)) (tools []mcp.Tool, cut string, err error) {
	if err := mcp.CheckDeclared(srv.Peer(), "tools/list"); err != nil {
		if !force {
			return nil, "", refusedUnlessForced(err)
		}
		warn(stderr, "the server did not declare the tools capability; sending tools/list and tools/call anyway (--force)")
	}
	var list mcp.ToolList
	if page == nil {
		list, err = mcp.ListTools(ctx, srv.Session, t.listOptions(srv, force))
	} else {
		list, err = mcp.StreamTools(ctx, srv.Session, t.listOptions(srv, force), page)
	}
	if err != nil {
		return nil, "", timedOut(err)
	}
	warnRejected(stderr, list.Rejected)
	return list.Tools, incomplete(stderr, list.Incomplete), nil
}

// incomplete warns that a list was cut short, and why; it returns the
// reason for --json ("" when the list is whole).
func incomplete(stderr io.Writer, why error) string {
	if why == nil {
		return ""
	}
	warn(stderr, why.Error())
	return why.Error()
}

// warnRejected says which tools were left out of the list, and why.
func warnRejected(stderr io.Writer, rejected []mcp.RejectedTool) {
	for _, r := range rejected {
		warn(stderr, fmt.Sprintf("tool %s left out: its inputSchema's x-mcp-header is invalid (%v)", r.Name, r.Why))
	}
}

// warn prints a warning line on stderr. Warnings quote the server (a
// tool's name, a cursor, a schema's error), so they pass termtext.
func warn(stderr io.Writer, msg string) { fmt.Fprintln(stderr, "mcpoke: warning:", termtext.Line(msg)) }

// findTool returns the tool called name, or a usage error that names the
// close matches.
func findTool(tools []mcp.Tool, name, server string) (mcp.Tool, error) {
	names := make([]string, len(tools))
	for i, t := range tools {
		if t.Name == name {
			return t, nil
		}
		names[i] = t.Name
	}
	msg := fmt.Sprintf("unknown tool %s on %s", quote(name), quote(server))
	// The names are the server's: one line each, whatever they hold.
	switch near := suggest.Closest(name, names, 3); {
	case len(near) > 0:
		msg += "; did you mean " + strings.Join(lines(near), " or ") + "?"
	case len(names) == 0:
		msg += "; it has no tools"
	case len(names) <= 12:
		msg += "; its tools: " + strings.Join(lines(names), ", ")
	default:
		msg += "; run mcpoke tools to list them"
	}
	return mcp.Tool{}, usageError("%s", msg)
}

// lines makes each string safe to show on one line.
func lines(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = termtext.Line(s)
	}
	return out
}

// prepareTool finds the tool on the server and checks args against its
// inputSchema: the checks that send nothing when they fail. Nil args get
// defaultArgs. It returns the tool and the params of tools/call. force
// sends to a server that did not declare tools (see listTools).
func prepareTool(ctx context.Context, srv *connect.Conn, name string, args json.RawMessage, stderr io.Writer, force bool, within timeoutFlags) (mcp.Tool, json.RawMessage, error) {
	tools, _, err := listTools(ctx, srv, stderr, force, within)
	if err != nil {
		return mcp.Tool{}, nil, err
	}
	t, err := findTool(tools, name, srv.Peer().ServerInfo.Name)
	if err != nil {
		return mcp.Tool{}, nil, err
	}
	if args == nil {
		args = defaultArgs(t)
	}
	if err := checkArgs(t, args, func(w string) { warn(stderr, w) }); err != nil {
		return mcp.Tool{}, nil, err
	}
	params, err := mcp.CallToolParams(t.Name, args)
	if err != nil {
		return mcp.Tool{}, nil, usageError("%v", err)
	}
	return t, params, nil
}

// parseArgs reads --args: a JSON object, {} when empty.
func parseArgs(text string) (json.RawMessage, error) {
	if strings.TrimSpace(text) == "" {
		return json.RawMessage(`{}`), nil
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, usageError("--args is not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, usageError(`--args must be a JSON object, like '{"text":"hi"}'`)
	}
	return json.RawMessage(text), nil
}

// checkArgs validates args against the tool's inputSchema. A schema mcpoke
// cannot compile is the server's problem, not the user's: it is reported
// as a warning and the call goes ahead. So is an explicit null the schema
// does not allow for a parameter it does not require: the user asked to
// send it, and whether null means "not given" is the server's to say
// (its Mcp-Param header, if any, is left out, as for a value not given).
func checkArgs(t mcp.Tool, args json.RawMessage, warn func(string)) error {
	if t.SchemaErr != nil {
		warn(fmt.Sprintf("not checking arguments: the %s tool's %v", t.Name, t.SchemaErr))
		return nil
	}
	if t.Schema == nil {
		return nil
	}
	if err := t.Schema.Validate(args); err != nil {
		if nulls := nullsAllowedOut(t, args); len(nulls) > 0 {
			warn(fmt.Sprintf("sending the arguments of %s as given, though its inputSchema does not allow null for %s (%v); "+
				"leave the parameter out to send no value", quote(t.Name), strings.Join(nulls, ", "), err))
			return nil
		}
		return usageError("arguments for %s do not match its inputSchema: %v", quote(t.Name), err)
	}
	return nil
}

// nullsAllowedOut names the top-level arguments that are an explicit null
// when args would match t's schema without them; nil when they would not
// (the arguments are wrong otherwise too) or there are none.
func nullsAllowedOut(t mcp.Tool, args json.RawMessage) []string {
	var members map[string]json.RawMessage
	if json.Unmarshal(args, &members) != nil {
		return nil
	}
	var nulls []string
	for k, v := range members {
		if string(bytes.TrimSpace(v)) == "null" {
			nulls = append(nulls, quote(k))
			delete(members, k)
		}
	}
	if len(nulls) == 0 {
		return nil
	}
	without, _ := json.Marshal(members)
	if t.Schema.Validate(without) != nil {
		return nil
	}
	slices.Sort(nulls)
	return nulls
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/suggest"
	"github.com/mcpoke/mcpoke/internal/toolschema"
	"github.com/mcpoke/mcpoke/session"
)

// maxToolPages bounds tools/list pagination against a server that keeps
// returning cursors.
const maxToolPages = 100

// toolsListTimeout bounds each tools/list request.
const toolsListTimeout = 30 * time.Second

// tool is one entry of tools/list: the fields mcpoke reads, and the entry
// as the server sent it.
type tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	raw         json.RawMessage
}

// listTools returns every tool the server has, following nextCursor.
func listTools(ctx context.Context, s *session.Session) ([]tool, error) {
	var all []tool
	var cursor string
	seen := map[string]bool{}
	for range maxToolPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		res, err := s.Do(ctx, "tools/list", params, session.CallOptions{Timeout: toolsListTimeout, NoProgressToken: true})
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, fmt.Errorf("tools/list: malformed result: %w", err)
		}
		for _, raw := range page.Tools {
			var t tool
			if err := json.Unmarshal(raw, &t); err != nil {
				return nil, fmt.Errorf("tools/list: malformed tool %s: %w", clip(string(raw), 80), err)
			}
			t.raw = raw
			all = append(all, t)
		}
		if page.NextCursor == "" || seen[page.NextCursor] {
			return all, nil
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
	return all, nil
}

// findTool returns the tool called name, or a usage error that names the
// close matches.
func findTool(tools []tool, name, server string) (tool, error) {
	names := make([]string, len(tools))
	for i, t := range tools {
		if t.Name == name {
			return t, nil
		}
		names[i] = t.Name
	}
	msg := fmt.Sprintf("unknown tool %s on %s", quote(name), quote(server))
	switch near := suggest.Closest(name, names, 3); {
	case len(near) > 0:
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	case len(names) == 0:
		msg += "; it has no tools"
	case len(names) <= 12:
		msg += "; its tools: " + strings.Join(names, ", ")
	default:
		msg += "; run mcpoke tools to list them"
	}
	return tool{}, usageError("%s", msg)
}

// prepareTool finds the tool on the server and checks args against its
// inputSchema: the checks that send nothing when they fail. Nil args get
// defaultArgs. It returns the tool and the arguments to send.
func prepareTool(ctx context.Context, srv *server, name string, args json.RawMessage, stderr io.Writer) (tool, json.RawMessage, error) {
	tools, err := listTools(ctx, srv.Session)
	if err != nil {
		return tool{}, nil, err
	}
	t, err := findTool(tools, name, srv.peer.ServerInfo.Name)
	if err != nil {
		return tool{}, nil, err
	}
	if args == nil {
		args = defaultArgs(t.InputSchema)
	}
	warn := func(w string) { fmt.Fprintln(stderr, "mcpoke: warning:", w) }
	return t, args, checkArgs(t, args, warn)
}

// callParams are the params of tools/call.
func callParams(name string, args json.RawMessage) json.RawMessage {
	p, _ := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{name, args})
	return p
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
// as a warning and the call goes ahead.
func checkArgs(t tool, args json.RawMessage, warn func(string)) error {
	if len(t.InputSchema) == 0 {
		return nil
	}
	schema, err := toolschema.Compile(t.InputSchema)
	if err != nil {
		warn(fmt.Sprintf("not checking arguments: the %s tool's %v", t.Name, err))
		return nil
	}
	if err := schema.Validate(args); err != nil {
		return usageError("arguments for %s do not match its inputSchema: %v", quote(t.Name), err)
	}
	return nil
}

// clip shortens s to n bytes for messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

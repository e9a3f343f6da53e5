package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

func rootsTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:  "roots",
			Title: "Roots: what the client offers",
			Description: "Asks the client for its roots (roots/list) and lists them. The demo server also " +
				"logs each notifications/roots/list_changed it gets (see its stderr).",
			InputSchema: json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`),
		},
		run: runRoots,
	}
}

func runRoots(ctx context.Context, srv *server, in *session.Incoming, _ json.RawMessage) (any, error) {
	if mcp.ReadRequestMeta(in.Params).Version != "" {
		return runRootsModern(srv, in)
	}
	if !srv.clientFeatures().Roots {
		return errorResult("the client did not declare roots, so the demo server may not ask for them " +
			"(mcpoke declares them in the UI, and headless with --root DIR)"), nil
	}
	res, err := in.Session().Do(ctx, "roots/list", nil, session.CallOptions{NoProgressToken: true})
	if err != nil {
		return textResult(fmt.Sprintf("roots/list failed: %v", err)), nil
	}
	return rootsText(res)
}

// rootsText lists the roots of a roots/list result.
func rootsText(res json.RawMessage) (any, error) {
	var list struct {
		Roots []mcp.Root `json:"roots"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return errorResult(fmt.Sprintf("the client's roots/list result is malformed: %v", err)), nil
	}
	if len(list.Roots) == 0 {
		return textResult("the client offers no roots"), nil
	}
	lines := []string{"the client offers " + english.Plural(len(list.Roots), "root") + ":"}
	for _, r := range list.Roots {
		line := "  " + r.URI
		if r.Name != "" {
			line += " (" + r.Name + ")"
		}
		lines = append(lines, line)
	}
	return textResult(strings.Join(lines, "\n")), nil
}

// rootsChanged logs the client's notifications/roots/list_changed.
func (srv *server) rootsChanged(*session.Session, json.RawMessage) {
	srv.log.Info("the client's roots changed (notifications/roots/list_changed)")
}

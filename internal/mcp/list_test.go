package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// pagedServer serves tools/list from pages: page i answers cursor
// cursors[i-1], and says next[i] as its nextCursor.
func pagedServer(t *testing.T, page func(cursor string) any) *session.Session {
	t.Helper()
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"tools/list": func(_ context.Context, in *session.Incoming) (any, error) {
			var p struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(in.Params, &p)
			return page(p.Cursor), nil
		},
	}})
	cli := session.New(a, session.Config{})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	return cli
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func toolEntry(name string) map[string]any {
	return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
}

func names(tools []Tool) string {
	var n []string
	for _, t := range tools {
		n = append(n, t.Name)
	}
	return strings.Join(n, ",")
}

func TestListToolsFollowsCursors(t *testing.T) {
	s := pagedServer(t, func(cursor string) any {
		switch cursor {
		case "":
			return map[string]any{"tools": []any{toolEntry("a"), toolEntry("b")}, "nextCursor": "p2"}
		case "p2":
			return map[string]any{"tools": []any{toolEntry("c")}, "nextCursor": "p3"}
		default:
			return map[string]any{"tools": []any{toolEntry("d")}}
		}
	})
	list, err := ListTools(testContext(t), s, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list.Tools); got != "a,b,c,d" || list.Pages != 3 || list.Incomplete != nil {
		t.Errorf("tools %s in %d pages (incomplete: %v); want a,b,c,d in 3, complete", got, list.Pages, list.Incomplete)
	}
}

func TestListToolsRepeatedCursorIsReported(t *testing.T) {
	s := pagedServer(t, func(cursor string) any {
		switch cursor {
		case "":
			return map[string]any{"tools": []any{toolEntry("a")}, "nextCursor": "x"}
		case "x":
			return map[string]any{"tools": []any{toolEntry("b")}, "nextCursor": "y"}
		default: // y points back at x: a loop
			return map[string]any{"tools": []any{toolEntry("c")}, "nextCursor": "x"}
		}
	})
	list, err := ListTools(testContext(t), s, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(list.Incomplete, ErrRepeatedCursor) {
		t.Fatalf("Incomplete = %v; want ErrRepeatedCursor", list.Incomplete)
	}
	if got := names(list.Tools); got != "a,b,c" {
		t.Errorf("tools %s; want what came before the loop: a,b,c", got)
	}
}

func TestListToolsStopsAfterMaxPages(t *testing.T) {
	s := pagedServer(t, func(cursor string) any {
		n := len(cursor)
		return map[string]any{"tools": []any{toolEntry(fmt.Sprint("t", n))}, "nextCursor": cursor + "."}
	})
	list, err := ListTools(testContext(t), s, ListOptions{MaxPages: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(list.Incomplete, ErrTooManyPages) || list.Pages != 3 || len(list.Tools) != 3 {
		t.Errorf("%d tools in %d pages, Incomplete = %v; want 3 in 3, ErrTooManyPages", len(list.Tools), list.Pages, list.Incomplete)
	}
}

func TestListToolsMalformedToolIsAnError(t *testing.T) {
	for name, entry := range map[string]any{
		"not an object":   "sleep",
		"no name":         map[string]any{"description": "nameless"},
		"name not string": map[string]any{"name": 7},
		"bad description": map[string]any{"name": "x", "description": []int{1}},
	} {
		t.Run(name, func(t *testing.T) {
			s := pagedServer(t, func(string) any { return map[string]any{"tools": []any{toolEntry("ok"), entry}} })
			_, err := ListTools(testContext(t), s, ListOptions{})
			if !errors.Is(err, ErrMalformedTool) || !strings.HasPrefix(err.Error(), "tools/list: ") {
				t.Errorf("err = %v; want a tools/list error wrapping ErrMalformedTool", err)
			}
		})
	}
}

func TestListToolsMalformedResult(t *testing.T) {
	s := pagedServer(t, func(string) any { return map[string]any{"tools": "none"} })
	if _, err := ListTools(testContext(t), s, ListOptions{}); err == nil || !strings.Contains(err.Error(), "malformed result") {
		t.Errorf("err = %v; want a malformed result", err)
	}
}

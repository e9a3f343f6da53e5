package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// A list keeps at most MaxEntries entries and MaxBytes bytes of them,
// an entry that fits exactly included, and says where it stopped.
func TestListToolsKeepsWithinItsBudget(t *testing.T) {
	s := pagedServer(t, func(cursor string) any {
		n := len(cursor)
		return map[string]any{"tools": []any{toolEntry(fmt.Sprint("a", n)), toolEntry(fmt.Sprint("b", n))}, "nextCursor": cursor + "."}
	})
	list, err := ListTools(testContext(t), s, ListOptions{MaxEntries: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list.Tools); got != "a0,b0,a1" || !errors.Is(list.Incomplete, ErrListTooLong) ||
		!strings.Contains(list.Incomplete.Error(), "kept the first 3 entries") {
		t.Errorf("MaxEntries 3: tools %s, Incomplete %v; want a0,b0,a1, cut at 3 entries", got, list.Incomplete)
	}

	raw, _ := json.Marshal(toolEntry("a0")) // every entry here is this long
	list, err = ListTools(testContext(t), s, ListOptions{MaxBytes: 3 * len(raw)})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list.Tools); got != "a0,b0,a1" || !errors.Is(list.Incomplete, ErrListTooLong) {
		t.Errorf("MaxBytes of 3 entries: tools %s, Incomplete %v; want a0,b0,a1, cut there", got, list.Incomplete)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int]string{999: "999 B", 1000: "1.0 kB", 999_999: "1000.0 kB", 1_000_000: "1.0 MB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q; want %q", n, got, want)
		}
	}
}

// StreamTools hands each page on as it comes, saying whether another
// follows: every page but the last says so.
func TestStreamToolsSaysWhetherMoreFollow(t *testing.T) {
	s := pagedServer(t, func(cursor string) any {
		if cursor == "" {
			return map[string]any{"tools": []any{toolEntry("a")}, "nextCursor": "p2"}
		}
		return map[string]any{"tools": []any{toolEntry("b")}}
	})
	var got []string
	list, err := StreamTools(testContext(t), s, ListOptions{}, func(ts []Tool, more bool) {
		got = append(got, fmt.Sprint(names(ts), " more=", more))
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "; ") != "a more=true; b more=false" || list.Count != 2 || list.Tools != nil {
		t.Errorf("pages %q, count %d, kept %d; want a more=true; b more=false, 2 counted, none kept", got, list.Count, len(list.Tools))
	}
}

// StreamPrompts (through streamPages, as StreamResources) says the same.
func TestStreamPromptsSaysWhetherMoreFollow(t *testing.T) {
	a, b := transporttest.Pipe()
	srv := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"prompts/list": func(_ context.Context, in *session.Incoming) (any, error) {
			if !strings.Contains(string(in.Params), `"p2"`) {
				return map[string]any{"prompts": []any{map[string]any{"name": "a"}}, "nextCursor": "p2"}, nil
			}
			return map[string]any{"prompts": []any{map[string]any{"name": "b"}}}, nil
		},
	}})
	s := session.New(a, session.Config{})
	t.Cleanup(func() { s.Close(); srv.Close() })
	var got []string
	list, err := StreamPrompts(testContext(t), s, ListOptions{Force: true}, func(ps []Prompt, more bool) {
		for _, p := range ps {
			got = append(got, fmt.Sprint(p.Name, " more=", more))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "; ") != "a more=true; b more=false" || list.Count != 2 {
		t.Errorf("pages %q, count %d; want a more=true; b more=false, 2 counted", got, list.Count)
	}
}

package help

import (
	"strings"
	"testing"
)

// TestTopics: every file is a topic with a title, found by its name, and
// nothing but a topic's own name finds it.
func TestTopics(t *testing.T) {
	topics := Topics()
	if len(topics) < 20 {
		t.Fatalf("%d topics; the reference has at least 20", len(topics))
	}
	for _, tp := range topics {
		if tp.Title == "" || !strings.HasPrefix(tp.Markdown, "# ") {
			t.Errorf("topic %s: its first line must be a # heading, the title", tp.Name)
		}
		if got, ok := Lookup(tp.Name); !ok || got.Markdown != tp.Markdown {
			t.Errorf("Lookup(%q) does not find the topic", tp.Name)
		}
	}
	for _, name := range []string{"", "nosuch", "../help", "tui.md", "tui/", "."} {
		if _, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) found a topic", name)
		}
	}
}

// TestText: fences go, their lines are indented, links read as text.
func TestText(t *testing.T) {
	tp := Topic{Markdown: "# T\n\nSee [the flags](flags.md#x), [a site](https://example.com) and [here](#y).\n\n```console\n$ mcpoke ping\n```\n"}
	got := tp.Text()
	want := "# T\n\nSee the flags (mcpoke help flags), a site (https://example.com) and here.\n\n    $ mcpoke ping\n"
	if got != want {
		t.Errorf("Text() =\n%q\nwant\n%q", got, want)
	}
}

// TestLinksResolve: every link from one topic to another names a topic.
func TestLinksResolve(t *testing.T) {
	for _, tp := range Topics() {
		for _, line := range strings.Split(tp.Markdown, "\n") {
			for _, part := range strings.Split(line, "](")[1:] {
				target, _, _ := strings.Cut(part, ")")
				target, _, _ = strings.Cut(target, "#")
				if !strings.HasSuffix(target, ".md") || strings.Contains(target, "/") {
					continue
				}
				if _, ok := Lookup(strings.TrimSuffix(target, ".md")); !ok {
					t.Errorf("topic %s links to %s, which is no topic", tp.Name, target)
				}
			}
		}
	}
}

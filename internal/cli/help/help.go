// Package help holds mcpoke's reference: one Markdown file per topic,
// embedded in the binary and shown by `mcpoke help TOPIC`. The README
// links to the same files, so the reference is written once. Every
// example output in them is run against the demo server by the root
// package's TestDocExamples.
//
// A new topic is a new file here, NAME.md, whose first line is
// "# Title"; nothing else needs to change.
package help

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.md
var files embed.FS

// Topic is one page of the reference.
type Topic struct {
	// Name is what `mcpoke help NAME` takes: the file's name without .md.
	Name string
	// Title is the file's first heading.
	Title string
	// Markdown is the whole file.
	Markdown string
}

// Topics returns every topic, by name.
func Topics() []Topic {
	entries, err := fs.Glob(files, "*.md")
	if err != nil {
		panic(err) // the pattern is constant
	}
	sort.Strings(entries)
	topics := make([]Topic, 0, len(entries))
	for _, e := range entries {
		t, _ := Lookup(strings.TrimSuffix(e, ".md"))
		topics = append(topics, t)
	}
	return topics
}

// Lookup returns the topic called name.
func Lookup(name string) (Topic, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return Topic{}, false
	}
	b, err := files.ReadFile(path.Clean(name + ".md"))
	if err != nil {
		return Topic{}, false
	}
	md := string(b)
	title, _, _ := strings.Cut(md, "\n")
	return Topic{Name: name, Title: strings.TrimSpace(strings.TrimPrefix(title, "#")), Markdown: md}, true
}

// Text renders a topic for a terminal as plain text: Markdown stays as
// it is, easy to read, except fenced blocks, which lose their fences and
// are indented, and links, which keep their text and show their target.
func (t Topic) Text() string {
	var b strings.Builder
	inFence := false
	for _, line := range strings.Split(strings.TrimRight(t.Markdown, "\n"), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			b.WriteString("    " + line + "\n")
			continue
		}
		b.WriteString(relink(line) + "\n")
	}
	return b.String()
}

// relink turns [text](other.md) into "text (mcpoke help other)" and
// [text](URL) into "text (URL)", so that a link reads on a terminal.
func relink(line string) string {
	var b strings.Builder
	for {
		open := strings.Index(line, "](")
		if open < 0 {
			break
		}
		start := strings.LastIndex(line[:open], "[")
		end := strings.Index(line[open:], ")")
		if start < 0 || end < 0 {
			break
		}
		text, target := line[start+1:open], line[open+2:open+end]
		target, _, _ = strings.Cut(target, "#")
		switch {
		case strings.HasSuffix(target, ".md") && !strings.Contains(target, "/"):
			target = "mcpoke help " + strings.TrimSuffix(target, ".md")
		}
		if target == "" { // a section of this topic
			b.WriteString(line[:start] + text)
		} else {
			b.WriteString(line[:start] + text + " (" + target + ")")
		}
		line = line[open+end+1:]
	}
	b.WriteString(line)
	return b.String()
}

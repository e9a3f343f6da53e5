package ui

import (
	"encoding/json"
	"strings"

	"github.com/mcpoke/mcpoke/internal/toolresult"
)

// renderResult renders a result for the detail pane: a tool result's
// content blocks as readable text and its structured content as pretty
// JSON; any other result as pretty JSON. Every string is sanitized
// (toolresult and prettyJSON pass it through termtext).
func renderResult(st *styles, method string, raw json.RawMessage) []string {
	res, ok := toolresult.DescribeFor(method, raw)
	if !ok {
		return []string{st.Key.Render("result"), indent(prettyJSON(raw))}
	}
	var out []string
	if res.IsError {
		out = append(out, st.StatusErr.Render("result · the tool reported an error (isError)"))
	} else {
		out = append(out, st.Key.Render("result"))
	}
	for _, b := range res.Blocks {
		out = append(out, indent(renderBlock(st, b)))
	}
	if len(res.Blocks) == 0 {
		out = append(out, st.Muted.Render("  (no content)"))
	}
	if res.Structured != nil {
		out = append(out, st.Key.Render("structuredContent"), indent(strings.Join(res.Structured, "\n")))
	}
	return out
}

// renderBlock renders one content block: its tag, muted, then its head;
// a block without a head starts its body on the tag's line.
func renderBlock(st *styles, b toolresult.Block) string {
	var first []string
	if b.Tag != "" {
		first = append(first, st.Muted.Render("["+b.Tag+"]"))
	}
	body := b.Lines
	switch {
	case b.Head != "":
		first = append(first, b.Head)
	case len(body) > 0:
		first = append(first, body[0])
		body = body[1:]
	}
	return strings.Join(append([]string{strings.Join(first, " ")}, body...), "\n")
}

// byteSize renders a size such as 1.2 KB.
func byteSize(n int) string { return toolresult.ByteSize(n) }

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

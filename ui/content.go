package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/termtext"
)

// contentBlock is one item of a tool result's content (MCP ContentBlock).
type contentBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	MimeType string          `json:"mimeType"`
	Data     string          `json:"data"`
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	Resource *embeddedRes    `json:"resource"`
	Raw      json.RawMessage `json:"-"`
}

type embeddedRes struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Blob     string `json:"blob"`
}

// toolResult is a CallToolResult.
type toolResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
}

// renderResult renders a result for the detail pane: a tool result's
// content blocks as readable text and its structured content as pretty
// JSON; any other result as pretty JSON. Every string is sanitized.
func renderResult(st *Styles, method string, raw json.RawMessage) []string {
	var tr toolResult
	if method != "tools/call" || json.Unmarshal(raw, &tr) != nil || (tr.Content == nil && tr.StructuredContent == nil) {
		return []string{st.Key.Render("result"), indent(prettyJSON(raw))}
	}
	var out []string
	if tr.IsError {
		out = append(out, st.StatusErr.Render("result · the tool reported an error (isError)"))
	} else {
		out = append(out, st.Key.Render("result"))
	}
	for _, c := range tr.Content {
		out = append(out, indent(renderBlock(st, c)))
	}
	if len(tr.Content) == 0 {
		out = append(out, st.Muted.Render("  (no content)"))
	}
	if len(tr.StructuredContent) > 0 && string(tr.StructuredContent) != "null" {
		out = append(out, st.Key.Render("structuredContent"), indent(prettyJSON(tr.StructuredContent)))
	}
	return out
}

// renderBlock renders one content block readably.
func renderBlock(st *Styles, raw json.RawMessage) string {
	var b contentBlock
	if json.Unmarshal(raw, &b) != nil {
		return prettyJSON(raw)
	}
	tag := func(s string) string { return st.Muted.Render("[" + termtext.Line(s) + "]") }
	switch b.Type {
	case "text":
		return tag("text") + " " + termtext.Block(b.Text)
	case "image", "audio":
		return tag(b.Type) + " " + termtext.Line(b.MimeType) + fmt.Sprintf(", %s base64", byteSize(len(b.Data)))
	case "resource_link":
		return tag("link") + " " + termtext.Line(b.Name) + " " + termtext.Line(b.URI)
	case "resource":
		if b.Resource == nil {
			return tag("resource") + " " + prettyJSON(raw)
		}
		head := tag("resource") + " " + termtext.Line(b.Resource.URI)
		if b.Resource.MimeType != "" {
			head += " (" + termtext.Line(b.Resource.MimeType) + ")"
		}
		if b.Resource.Text != "" {
			return head + "\n" + termtext.Block(b.Resource.Text)
		}
		return head + fmt.Sprintf(", %s base64", byteSize(len(b.Resource.Blob)))
	}
	return tag(b.Type) + " " + prettyJSON(raw)
}

// byteSize renders a size such as 1.2 KB.
func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

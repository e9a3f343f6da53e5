// Package toolresult reads an MCP CallToolResult for people: it decodes
// the result and describes each content block as plain text lines, for the
// headless CLI and the TUI to lay out in their own way.
//
// Every string in a Result has passed termtext: a caller may print it as
// is. A Result holds no styling and no indentation.
package toolresult

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// Result is a CallToolResult described for reading.
type Result struct {
	// IsError is the result's isError: the tool itself reported an error.
	IsError bool
	// Blocks describes the content blocks, in order; empty when the
	// result has no content.
	Blocks []Block
	// Structured is structuredContent as indented JSON, one line an
	// element; nil when the result has none (absent or null).
	Structured []string
}

// Block describes one content block.
type Block struct {
	// Tag says what the block is: "text", "image", "audio", "link" (a
	// resource_link), "resource" (an embedded resource), or the type of
	// any other block as sent. It is "" for an item that does not decode
	// as a content block; its Lines are then its JSON.
	Tag string
	// Head is a one-line summary to show after the tag: the MIME type and
	// size of an image or audio, the name and URI of a link, the URI (and
	// MIME type, or blob size) of a resource. It is "" for text, for
	// blocks shown as JSON, and where there is nothing to summarize.
	Head string
	// Lines is the block's body: the text of a text block or of an
	// embedded text resource, or the block's JSON for a block of an
	// unknown type, a resource without a resource, or an item that does
	// not decode.
	Lines []string
}

// maxJSON bounds the JSON laid out line by line, so one huge value cannot
// stall a screen; beyond it the JSON is shown on one line, cut.
const maxJSON = 256 << 10

// Describe decodes raw as a CallToolResult. ok is false when raw is not
// one: not a JSON object, or one with neither content nor
// structuredContent. The caller then shows raw some other way.
func Describe(raw json.RawMessage) (r Result, ok bool) {
	tr, err := mcp.ReadCallResult(raw)
	if err != nil || (tr.Content == nil && tr.StructuredContent == nil) {
		return Result{}, false
	}
	r.IsError = tr.IsError
	r.Blocks = make([]Block, 0, len(tr.Content))
	for _, c := range tr.Content {
		r.Blocks = append(r.Blocks, describeBlock(c))
	}
	if len(tr.StructuredContent) > 0 && string(tr.StructuredContent) != "null" {
		r.Structured = jsonLines(tr.StructuredContent)
	}
	return r, true
}

// describeBlock describes one item of content.
func describeBlock(raw json.RawMessage) Block {
	var c struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
		URI      string `json:"uri"`
		Name     string `json:"name"`
		Resource *struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Blob     string `json:"blob"`
		} `json:"resource"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return Block{Lines: jsonLines(raw)}
	}
	switch c.Type {
	case "text":
		return Block{Tag: "text", Lines: blockLines(c.Text)}
	case "image", "audio":
		return Block{Tag: c.Type, Head: termtext.Line(c.MimeType) + ", " + base64Size(c.Data)}
	case "resource_link":
		return Block{Tag: "link", Head: termtext.Line(c.Name) + " " + termtext.Line(c.URI)}
	case "resource":
		res := c.Resource
		if res == nil {
			return Block{Tag: "resource", Lines: jsonLines(raw)}
		}
		b := Block{Tag: "resource", Head: termtext.Line(res.URI)}
		if res.MimeType != "" {
			b.Head += " (" + termtext.Line(res.MimeType) + ")"
		}
		if res.Text != "" {
			b.Lines = blockLines(res.Text)
		} else {
			b.Head += ", " + base64Size(res.Blob)
		}
		return b
	}
	return Block{Tag: termtext.Line(c.Type), Lines: jsonLines(raw)}
}

// base64Size states the size of base64 data: "4 bytes of base64",
// "1.2 KB of base64".
func base64Size(data string) string {
	if n := len(data); n < 1024 {
		return fmt.Sprintf("%d bytes of base64", n)
	}
	return ByteSize(len(data)) + " of base64"
}

// Bounds on the text laid out for reading: a server's 30 MB of text (8
// million empty lines, say) would cost hundreds of MB as lines, and
// minutes to print, for nobody to read. Beyond them the text is cut, and
// its last line says how much there was.
const (
	maxText      = 1 << 20
	maxTextLines = 10_000
)

// blockLines sanitizes multi-line text and splits it into lines, at most
// maxText bytes and maxTextLines lines of it.
func blockLines(s string) []string {
	kept, cut := s, false
	if len(kept) > maxText {
		kept, cut = kept[:maxText], true
		for range utf8.UTFMax - 1 { // not the head of a rune cut short
			if r, size := utf8.DecodeLastRuneInString(kept); r != utf8.RuneError || size != 1 {
				break
			}
			kept = kept[:len(kept)-1]
		}
	}
	if i := nthNewline(kept, maxTextLines); i >= 0 && i < len(kept)-1 { // more than a last newline after it
		kept, cut = kept[:i], true
	}
	lines := strings.Split(termtext.Block(kept), "\n")
	if cut {
		count := "1 line"
		if n := strings.Count(s, "\n") + 1; n > 1 {
			count = english.Thousands(n) + " lines"
		}
		lines = append(lines, fmt.Sprintf("… cut here: %s in %s in all (mcpoke shows at most %s or %s lines)",
			ByteSize(len(s)), count, ByteSize(maxText), english.Thousands(maxTextLines)))
	}
	return lines
}

// nthNewline is the offset of s's nth newline (from 1), or -1.
func nthNewline(s string, n int) int {
	at := -1
	for range n {
		i := strings.IndexByte(s[at+1:], '\n')
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	return at
}

// jsonLines indents raw JSON and sanitizes it: JSON may carry bidi
// overrides and C1 controls unescaped. JSON that does not parse is shown
// as sent; JSON longer than maxJSON is cut and shown on one line.
func jsonLines(raw []byte) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > maxJSON {
		return []string{termtext.Line(string(raw[:maxJSON])) + fmt.Sprintf("… (%s in all)", ByteSize(len(raw)))}
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return blockLines(string(raw))
	}
	return blockLines(b.String())
}

// ByteSize states a size for reading: 512 B, 1.2 KB, 3.4 MB.
func ByteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

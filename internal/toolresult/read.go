package toolresult

import (
	"encoding/json"
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// DescribeRead decodes raw as a resources/read result: a block for each
// item of its contents, "text" with the text as its lines, or "blob"
// with its MIME type and decoded size (the bytes themselves are never
// shown). ok is false when raw is not such a result.
func DescribeRead(raw json.RawMessage) (r Result, ok bool) {
	res, err := mcp.ReadReadResult(raw)
	if err != nil {
		return Result{}, false
	}
	r.Blocks = make([]Block, 0, len(res.Contents))
	for _, c := range res.Contents {
		r.Blocks = append(r.Blocks, ContentsBlock(c))
	}
	return r, true
}

// ContentsBlock describes one item of resource contents.
func ContentsBlock(c mcp.ResourceContents) Block {
	head := termtext.Line(c.URI)
	if c.MimeType != "" {
		head += " (" + termtext.Line(c.MimeType) + ")"
	}
	if !c.IsBlob {
		// A file's final newline would show as an empty last line.
		return Block{Tag: "text", Head: head, Lines: blockLines(strings.TrimSuffix(*c.Text, "\n"))}
	}
	if c.BlobErr != nil {
		return Block{Tag: "blob", Head: head + ", " + termtext.Line(c.BlobErr.Error())}
	}
	return Block{Tag: "blob", Head: head + ", " + ByteSize(len(c.Blob))}
}

// DescribePrompt decodes raw as a prompts/get result: its description,
// if any, as a "description" block, then a block for each message, tagged
// with its role and its content's tag ("user text"). ok is false when raw
// is not such a result.
func DescribePrompt(raw json.RawMessage) (r Result, ok bool) {
	res, err := mcp.ReadPromptResult(raw)
	if err != nil {
		return Result{}, false
	}
	if res.Description != "" {
		r.Blocks = append(r.Blocks, Block{Tag: "description", Lines: blockLines(res.Description)})
	}
	for _, m := range res.Messages {
		b := describeBlock(m.Content)
		role := termtext.Line(m.Role)
		if b.Tag == "" {
			b.Tag = role
		} else {
			b.Tag = role + " " + b.Tag
		}
		r.Blocks = append(r.Blocks, b)
	}
	return r, true
}

// DescribeFor describes a result of method for reading: a tool result, a
// resource's contents or a prompt's messages. ok is false for any other
// method, or a result not of its shape.
func DescribeFor(method string, raw json.RawMessage) (Result, bool) {
	switch method {
	case "tools/call":
		return Describe(raw)
	case "resources/read":
		return DescribeRead(raw)
	case "prompts/get":
		return DescribePrompt(raw)
	}
	return Result{}, false
}

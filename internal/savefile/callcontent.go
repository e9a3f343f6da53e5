package savefile

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// Binary is a tools/call result's binary content item: an image, an
// audio clip, or an embedded resource's blob.
type Binary struct {
	// Type is the item's type: "image", "audio" or "resource".
	Type     string
	MimeType string
	// Index is the item's place in the content, from 0; Of counts the
	// binary items.
	Index, Of int
	data      string // base64, as sent
}

// CallBinary finds the first binary item of a CallToolResult; ok is false
// when it has none.
func CallBinary(result json.RawMessage) (b Binary, ok bool) {
	res, err := mcp.ReadCallResult(result)
	if err != nil {
		return Binary{}, false
	}
	for i, raw := range res.Content {
		var c struct {
			Type     string `json:"type"`
			MimeType string `json:"mimeType"`
			Data     string `json:"data"`
			Resource *struct {
				MimeType string  `json:"mimeType"`
				Blob     *string `json:"blob"`
			} `json:"resource"`
		}
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		item := Binary{Type: c.Type, MimeType: c.MimeType, Index: i, data: c.Data}
		switch {
		case c.Type == "image" || c.Type == "audio":
		case c.Type == "resource" && c.Resource != nil && c.Resource.Blob != nil:
			item.MimeType, item.data = c.Resource.MimeType, *c.Resource.Blob
		default:
			continue
		}
		if !ok {
			b, ok = item, true
		}
		b.Of++
	}
	return b, ok
}

// CallContent saves the first binary item of a tools/call result (its
// base64 decoded) to path with Write, as ReadContents does a read's: the
// TUI's save of a tool's image goes through here. It returns the item
// and how many bytes were written.
func CallContent(result json.RawMessage, path string, overwrite bool) (Binary, int, error) {
	b, ok := CallBinary(result)
	if !ok {
		return b, 0, errors.New("nothing to save: the result has no image, audio or blob")
	}
	data, err := base64.StdEncoding.DecodeString(b.data)
	if err != nil {
		return b, 0, fmt.Errorf("the %s is not valid base64: %w", b.Type, err)
	}
	if err := Write(path, data, overwrite); err != nil {
		return b, 0, err
	}
	return b, len(data), nil
}

package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// ReadResourceParams are the params of resources/read, and of
// resources/subscribe and resources/unsubscribe: {"uri": uri}.
func ReadResourceParams(uri string) json.RawMessage {
	p, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	return p
}

// ReadResult is a resources/read result: the contents, in order.
type ReadResult struct {
	Contents []ResourceContents
}

// ResourceContents is one item of a resources/read result (or of an
// embedded resource): text or binary.
type ResourceContents struct {
	URI      string
	MimeType string
	// Text is set for text contents.
	Text *string
	// Blob is a binary item's data, decoded; BlobErr says why its base64
	// did not decode (Blob is then nil). IsBlob tells a binary item from
	// a text one.
	Blob    []byte
	BlobErr error
	IsBlob  bool
	// Raw is the item as sent.
	Raw json.RawMessage
}

// Size is the content's length in bytes: the text's, or the decoded
// blob's.
func (c ResourceContents) Size() int {
	if c.Text != nil {
		return len(*c.Text)
	}
	return len(c.Blob)
}

// Bytes is the content itself: the text's bytes or the decoded blob, for
// saving to a file.
func (c ResourceContents) Bytes() []byte {
	if c.Text != nil {
		return []byte(*c.Text)
	}
	return c.Blob
}

// ReadReadResult reads a resources/read result; it fails when raw is not
// an object with a contents array of objects.
func ReadReadResult(raw json.RawMessage) (ReadResult, error) {
	var r struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return ReadResult{}, fmt.Errorf("resources/read result: %w", err)
	}
	if r.Contents == nil {
		return ReadResult{}, fmt.Errorf("resources/read result: it has no contents")
	}
	var out ReadResult
	for _, item := range r.Contents {
		c, err := ParseResourceContents(item)
		if err != nil {
			return ReadResult{}, fmt.Errorf("resources/read result: %w", err)
		}
		out.Contents = append(out.Contents, c)
	}
	return out, nil
}

// ParseResourceContents reads one TextResourceContents or
// BlobResourceContents.
func ParseResourceContents(raw json.RawMessage) (ResourceContents, error) {
	var f struct {
		URI      string  `json:"uri"`
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	}
	if err := decodeEntry(raw, &f, ErrMalformedResource); err != nil {
		return ResourceContents{}, err
	}
	c := ResourceContents{URI: f.URI, MimeType: f.MimeType, Text: f.Text, Raw: raw}
	if f.Text == nil && f.Blob != nil {
		c.IsBlob = true
		c.Blob, c.BlobErr = base64.StdEncoding.DecodeString(*f.Blob)
		if c.BlobErr != nil {
			c.Blob, c.BlobErr = nil, fmt.Errorf("blob is not base64: %w", c.BlobErr)
		}
	}
	if f.Text == nil && f.Blob == nil {
		return ResourceContents{}, fmt.Errorf("%w %s: neither text nor blob", ErrMalformedResource, clip(string(raw), 80))
	}
	return c, nil
}

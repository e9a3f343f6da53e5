package mcp

import (
	"encoding/json"
	"testing"
)

// A sampling message's content is one block or an array of them (2025-11-25);
// a message without content has no blocks.
func TestSamplingMessageContentShapes(t *testing.T) {
	r, err := ParseSamplingRequest(json.RawMessage(`{"messages":[
		{"role":"user","content":{"type":"text","text":"one"}},
		{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA","mimeType":"image/png"}]},
		{"role":"assistant"}],"maxTokens":5}`))
	if err != nil || len(r.Messages) != 3 {
		t.Fatalf("%+v %v", r, err)
	}
	var got [][]string
	for _, m := range r.Messages {
		var blocks []string
		for _, c := range m.Content {
			blocks = append(blocks, c.Type+":"+c.Text+c.MimeType)
		}
		got = append(got, blocks)
	}
	if len(got[0]) != 1 || got[0][0] != "text:one" ||
		len(got[1]) != 2 || got[1][0] != "text:a" || got[1][1] != "image:image/png" || r.Messages[1].Content[1].DataLen != 4 ||
		len(got[2]) != 0 {
		t.Errorf("content blocks %q; want [text:one] [text:a image:image/png] []", got)
	}
}

// A declined sampling request is the spec's -1 with its message, and the
// reason after it when there is one.
func TestSamplingDeclinedMessage(t *testing.T) {
	for why, want := range map[string]string{
		"":                             "User rejected sampling request",
		"declined by --sample decline": "User rejected sampling request: declined by --sample decline",
	} {
		if e := SamplingDeclined(why); e.Code != CodeSamplingRejected || e.Message != want {
			t.Errorf("SamplingDeclined(%q) = %d %q; want %q", why, e.Code, e.Message, want)
		}
	}
}

package mcp

import (
	"encoding/json"
	"testing"
)

// A tool, resource or template is written as the server sent it, and one
// built by hand (no Raw) from its fields.
func TestEntryMarshalRawOrFields(t *testing.T) {
	size := int64(3)
	for _, tc := range []struct {
		v    any
		want string
	}{
		{Resource{URI: "a://1", Name: "one", MimeType: "text/plain", Size: &size}, `{"uri":"a://1","name":"one","mimeType":"text/plain","size":3}`},
		{Resource{URI: "a://1", Raw: json.RawMessage(`{"uri":"a://1", "name":"one","x":1}`)}, `{"uri":"a://1","name":"one","x":1}`},
		{Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, `{"name":"t","inputSchema":{"type":"object"}}`},
		{Tool{Name: "t", Raw: json.RawMessage(`{"name":"t","z":3}`)}, `{"name":"t","z":3}`},
		{ResourceTemplate{URITemplate: "a://{x}", Name: "t"}, `{"uriTemplate":"a://{x}","name":"t"}`},
		{ResourceTemplate{URITemplate: "a://{x}", Raw: json.RawMessage(`{"uriTemplate":"a://{x}","name":"t","y":2}`)}, `{"uriTemplate":"a://{x}","name":"t","y":2}`},
	} {
		got, err := json.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: %s %v; want %s", tc.v, got, err, tc.want)
		}
	}
}

package mcp

import (
	"encoding/json"
	"testing"
)

// A prompt's arguments schema lists required only when an argument is
// required: JSON Schema's required is an array, never null.
func TestPromptArgumentsSchemaRequiredOnlyWhenSome(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`[]`, `{"type":"object","properties":{},"additionalProperties":false}`},
		{`[{"name":"lang","title":"Language"}]`, `{"type":"object","properties":{"lang":{"type":"string","title":"Language"}},"additionalProperties":false}`},
		{`[{"name":"code","required":true},{"name":"lang"}]`,
			`{"type":"object","properties":{"code":{"type":"string"},"lang":{"type":"string"}},"additionalProperties":false,"required":["code"]}`},
	} {
		p, err := ParsePrompt(json.RawMessage(`{"name":"p","arguments":` + tc.args + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(p.ArgumentsSchema()); got != tc.want {
			t.Errorf("arguments %s: schema\n %s\nwant\n %s", tc.args, got, tc.want)
		}
	}
}

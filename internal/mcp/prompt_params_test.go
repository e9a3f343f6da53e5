package mcp

import (
	"encoding/json"
	"testing"
)

// prompts/get for a prompt without arguments sends its name alone; with
// arguments, they must be strings.
func TestGetPromptParams(t *testing.T) {
	for _, tc := range []struct {
		args, want string
		fails      bool
	}{
		{args: "", want: `{"name":"p"}`},
		{args: `{}`, want: `{"name":"p"}`},
		{args: `{"lang":"go"}`, want: `{"name":"p","arguments":{"lang":"go"}}`},
		{args: `{"n":1}`, fails: true},
		{args: `[]`, fails: true},
	} {
		var args json.RawMessage
		if tc.args != "" {
			args = json.RawMessage(tc.args)
		}
		got, err := GetPromptParams("p", args)
		if (err != nil) != tc.fails || !tc.fails && string(got) != tc.want {
			t.Errorf("arguments %q: %s, %v; want %s (fails %v)", tc.args, got, err, tc.want, tc.fails)
		}
	}
}

package cli

import (
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// FuzzMayHaveIsError: whenever ReadCallResult finds isError true, the
// quick look said it may be there.
func FuzzMayHaveIsError(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[],"isError":true}`,
		`{"ISERROR":true}`,
		`{"is\u0045rror":true}`,
		"{\"\u017fs\":1,\"i\u017feRROR\":true}",
		`{"content":[{"type":"text","text":"isError"}]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, res string) {
		if !json.Valid([]byte(res)) {
			return
		}
		if r, err := mcp.ReadCallResult(json.RawMessage(res)); err == nil && r.IsError && !mayHaveIsError([]byte(res)) {
			t.Errorf("%s is an error result, but mayHaveIsError says no", res)
		}
	})
}

func TestMayHaveIsErrorSkipsPlainResults(t *testing.T) {
	if mayHaveIsError([]byte(`{"content":[{"type":"text","text":"hello"}],"resultType":"complete"}`)) {
		t.Error("a plain result without isError must not be read whole")
	}
}

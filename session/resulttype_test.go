package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzResultTypeOf: the shortcut for results that end complete reads
// what a full read of the object's members reads.
func FuzzResultTypeOf(f *testing.F) {
	for _, seed := range []string{
		`{"content":[],"resultType":"complete"}`,
		`{"resultType":"task","x":{"y":1,"resultType":"complete"}}`,
		`{"resultType":"input_required","resultType":"complete"}`,
		`{"a":"x\",\"resultType\":\"complete\"}"}`,
		`{"result\u0054ype":"task","resultType":"complete"}`,
		`{"resultType":"complete" }`, `{"resultType":7}`, `[]`, `{}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, result string) {
		if !json.Valid([]byte(result)) {
			return
		}
		want := ""
		if strings.Contains(result, `"resultType"`) { // the key unescaped, as resultTypeOf has always looked for it
			want = stringMember([]byte(result), "resultType")
		}
		if want == "" {
			want = ResultComplete
		}
		if got := resultTypeOf([]byte(result)); got != want {
			t.Errorf("resultTypeOf(%s) = %q, want %q", result, got, want)
		}
	})
}

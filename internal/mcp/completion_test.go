package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// completionOf is a completion/complete result with n values.
func completionOf(n int) json.RawMessage {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("%q", fmt.Sprint("v", i))
	}
	return json.RawMessage(`{"completion":{"values":[` + strings.Join(vals, ",") + `],"hasMore":true}}`)
}

// The spec caps a completion at 100 values: exactly 100 is within it,
// one more is too many and only the first 100 are kept.
func TestReadCompleteResultCapsTheValues(t *testing.T) {
	for _, tc := range []struct {
		n, kept int
		tooMany bool
	}{
		{n: 0},
		{n: MaxCompletionValues, kept: MaxCompletionValues},
		{n: MaxCompletionValues + 1, kept: MaxCompletionValues, tooMany: true},
	} {
		c, err := ReadCompleteResult(completionOf(tc.n))
		if err != nil || len(c.Values) != tc.kept || c.TooMany != tc.tooMany || !c.HasMore {
			t.Errorf("%d values: kept %d, too many %v, has more %v, %v; want %d, %v", tc.n, len(c.Values), c.TooMany, c.HasMore, err, tc.kept, tc.tooMany)
		}
		if tc.kept > 0 && c.Values[tc.kept-1] != fmt.Sprint("v", tc.kept-1) {
			t.Errorf("%d values: the last kept is %q", tc.n, c.Values[tc.kept-1])
		}
	}
	for _, raw := range []string{`{}`, `{"completion":null}`, `[]`} {
		if _, err := ReadCompleteResult(json.RawMessage(raw)); err == nil {
			t.Errorf("%s: no error", raw)
		}
	}
}

package mcp

import (
	"encoding/json"
	"errors"
	"testing"
)

// An integer header value may be anything in JavaScript's safe range,
// its ends included, and nothing past them.
func TestParamHeadersSafeIntegerEnds(t *testing.T) {
	tool := Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}`)}
	for _, tc := range []struct {
		n  string
		ok bool
	}{
		{"9007199254740991", true},
		{"-9007199254740991", true},
		{"9007199254740992", false},
		{"-9007199254740992", false},
	} {
		got, err := ParamHeaders(tool, json.RawMessage(`{"n":`+tc.n+`}`))
		switch {
		case tc.ok && (err != nil || got["N"] != tc.n):
			t.Errorf("n %s: %v, %v; want the header N: %s", tc.n, got, err, tc.n)
		case !tc.ok && !errors.Is(err, ErrHeaderValue):
			t.Errorf("n %s: %v, %v; want ErrHeaderValue", tc.n, got, err)
		}
	}
}

package mcp

import (
	"encoding/json"
	"testing"
)

// The least severe level and a message without a logger (or with a null
// one) are as the spec allows: no problem is reported.
func TestParseLogMessageAllowsDebugAndNoLogger(t *testing.T) {
	for _, raw := range []string{
		`{"level":"debug","data":"x"}`,
		`{"level":"debug","logger":null,"data":"x"}`,
		`{"level":"emergency","logger":"db","data":"x"}`,
	} {
		e, err := ParseLogMessage(json.RawMessage(raw))
		if err != nil || e.Problem != "" || e.Logger != "" && e.Logger != "db" {
			t.Errorf("%s: %+v %v; want no problem", raw, e, err)
		}
	}
}

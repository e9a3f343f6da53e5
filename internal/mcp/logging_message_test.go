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

// logging/setLevel takes every level the spec knows, the least severe
// included.
func TestSetLevelParamsTakesEveryLevel(t *testing.T) {
	for _, level := range LogLevels {
		if p, err := SetLevelParams(level); err != nil || string(p) != `{"level":"`+level+`"}` {
			t.Errorf("%s: %s %v", level, p, err)
		}
	}
}

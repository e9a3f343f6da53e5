package session

import (
	"encoding/json"
	"testing"
)

// appendString writes reasons, messages and tool errors onto the wire: its
// fast path must give the bytes encoding/json gives, so that a reason with
// a quote, a newline or broken UTF-8 never breaks the frame. (Plain ASCII
// such as <&> is written as is, where encoding/json escapes it for HTML.)
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain reason", `"`, `say "hi"`, `\`, `a\b`, "\n", "tab\there",
		"\x00", "\x1f", " ", "\x7f", "é", "\x80", "\xff", "ok\xffok", "\u2028",
	} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// appendFloat writes progress and total: integers as integers, anything
// else as encoding/json's shortest form, the value never rounded.
func TestAppendFloat(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 1: "1", -2: "-2", 1.5: "1.5", -0.25: "-0.25", 0.1: "0.1",
		1e6: "1000000", -1e6: "-1000000",
		999999999999999: "999999999999999", -999999999999999: "-999999999999999",
		1e15: "1e+15", -1e15: "-1e+15", 1e21: "1e+21",
	} {
		if got := appendFloat(nil, f); string(got) != want {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

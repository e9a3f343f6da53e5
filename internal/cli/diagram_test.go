package cli

import "testing"

// --request keeps the id's JSON type: 3 is a number, "3" a string.
func TestRequestIDKeepsJSONType(t *testing.T) {
	for in, want := range map[string]string{
		"":         "",
		"3":        "3",
		`"3"`:      `"3"`,
		"abc":      `"abc"`,
		`"a\"b"`:   `"a\"b"`,
		"-1":       "-1",
		"[1]":      `"[1]"`,
		" 7 ":      "7",
		`"\u0041"`: `"A"`,
	} {
		if got := requestID(in); got != want {
			t.Errorf("requestID(%q) = %q, want %q", in, got, want)
		}
	}
}

package mcp

import "testing"

// clip keeps a string of exactly n bytes whole and marks a longer one cut.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"", 0, ""},
	} {
		if got := clip(tc.s, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q; want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

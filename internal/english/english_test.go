package english

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 late responses", 1: "1 late response", 2: "2 late responses"} {
		if got := Plural(n, "late response"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

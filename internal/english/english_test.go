package english

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 late responses", 1: "1 late response", 2: "2 late responses"} {
		if got := Plural(n, "late response"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 lines that are not JSON"}, {1, "1 line that is not JSON"}, {2, "2 lines that are not JSON"}} {
		if got := Count(tc.n, "line that is not JSON", "lines that are not JSON"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 10000: "10,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

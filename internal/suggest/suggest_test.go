package suggest

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	tools := []string{"sleep", "stubborn", "flood", "echo", "fail", "trigger-long-running-operation", "demo", "remote"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"slep", []string{"sleep"}},
		{"Echo", []string{"echo"}},
		{"long-running", []string{"trigger-long-running-operation"}},
		{"fial", []string{"fail"}},
		{"zzzzzzzz", nil},
		{"remot", []string{"remote"}},
	} {
		got := Closest(tc.name, tools, 3)
		if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("Closest(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	if d := distance("kitten", "sitting"); d != 3 {
		t.Fatalf("distance %d", d)
	}
	if d := distance("", "abc"); d != 3 {
		t.Fatalf("distance %d", d)
	}
}

package transport

import (
	"slices"
	"strconv"
	"testing"
)

func TestRing(t *testing.T) {
	r := newRing(3)
	if got := r.last(5); got != nil {
		t.Fatalf("empty ring: %q", got)
	}
	r.add("a")
	r.add("b")
	if got := r.last(5); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("got %q", got)
	}
	for i := range 5 {
		r.add(strconv.Itoa(i))
	}
	if got := r.last(5); !slices.Equal(got, []string{"2", "3", "4"}) {
		t.Fatalf("wrapped: got %q", got)
	}
	if got := r.last(2); !slices.Equal(got, []string{"3", "4"}) {
		t.Fatalf("last 2: got %q", got)
	}
	if got := r.last(0); got != nil {
		t.Fatalf("last 0: got %q", got)
	}
}

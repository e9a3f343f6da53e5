package cli

import (
	"bytes"
	"fmt"
	"testing"
)

// A list of up to streamAfter entries is kept whatever its pages (it is
// printed whole afterwards); past that, its pages are printed as they
// come, the kept ones first, and nothing more is kept.
func TestPageStreamStartsPastItsBound(t *testing.T) {
	var out bytes.Buffer
	heads := 0
	ps := &pageStream[int]{head: func() { heads++ }, each: func(i int) { fmt.Fprintln(&out, i) }}
	page := func(from, n int) []int {
		p := make([]int, n)
		for i := range p {
			p[i] = from + i
		}
		return p
	}
	for i := range 10 {
		ps.page(page(i*100, 100), true)
	}
	if ps.streaming || len(ps.kept) != streamAfter || out.Len() != 0 {
		t.Fatalf("after %d entries in 10 pages: streaming %v, kept %d, printed %q", streamAfter, ps.streaming, len(ps.kept), out.String())
	}
	ps.page(page(1000, 1), true)
	ps.page(page(1001, 99), false)
	if !ps.streaming || heads != 1 || ps.kept != nil || ps.count != 1100 || ps.pages != 12 {
		t.Fatalf("streaming %v, heads %d, kept %d, count %d, pages %d", ps.streaming, heads, len(ps.kept), ps.count, ps.pages)
	}
	want := ""
	for i := range 1100 {
		want += fmt.Sprintln(i)
	}
	if out.String() != want {
		t.Errorf("printed the entries out of order or not all of them (%d bytes, want %d)", out.Len(), len(want))
	}
}

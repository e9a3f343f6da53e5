package session

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// The table finds each outgoing row it keeps by its id's exact text, and
// no other, whether the id is one of our counting ones (filed in
// counted) or not (random, string, or a number out of order: out),
// through trims that drop finished rows from the middle of both.
func TestOutgoingFindsExactlyTheRowsKept(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		tb := newRequestTable(1 + rng.IntN(20))
		var all []*request
		next := int64(rng.IntN(3))
		for range 400 {
			var id ID
			switch k := rng.IntN(10); {
			case k < 6:
				id = IntID(next) // counting, as newID does
				next += 1 + int64(rng.IntN(2))
			case k < 8:
				id = IntID(1<<20 + rng.Int64N(1<<30)) // UnpredictableIDs
			case k < 9:
				id = StringID("s" + strconv.Itoa(rng.IntN(1<<30)))
			default:
				id = ID{raw: "0" + strconv.Itoa(1+rng.IntN(50))} // never IntID's text
			}
			if tb.outgoing(id.raw) != nil {
				continue // ids of kept requests are unique, as newID keeps them
			}
			r := &request{info: rowInfo{ID: id, State: Pending}}
			tb.add(r)
			all = append(all, r)
			for range rng.IntN(3) {
				if p := all[rng.IntN(len(all))]; p.info.State == Pending {
					p.info.State = Completed
					tb.finish()
				}
			}
			for _, r := range all {
				kept := slices.Contains(tb.order, r)
				if got := tb.outgoing(r.info.ID.raw); kept && got != r {
					t.Fatalf("seed %d: outgoing(%s) = %p; want the row kept, %p", seed, r.info.ID, got, r)
				} else if !kept && got == r {
					t.Fatalf("seed %d: outgoing(%s) finds the row, though its request was trimmed", seed, r.info.ID)
				}
			}
			if len(tb.counted)+len(tb.out) != len(tb.order) {
				t.Fatalf("seed %d: %d counted and %d by text, for %d rows kept", seed, len(tb.counted), len(tb.out), len(tb.order))
			}
		}
		for _, text := range []string{"1.0", `"1"`, "-1", "01", "1e0", "18446744073709551616"} {
			if r := tb.outgoing(text); r != nil && r.info.ID.raw != text {
				t.Fatalf("seed %d: outgoing(%s) finds request %s", seed, text, r.info.ID)
			}
		}
	}
}

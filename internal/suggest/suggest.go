// Package suggest finds the names closest to a misspelt one, for errors
// such as `unknown tool "slep"; did you mean sleep?`.
package suggest

import (
	"sort"
	"strings"
)

// Closest returns up to n of names within a small edit distance of name
// (or that contain it, or that it contains): those at the smallest
// distance found.
func Closest(name string, names []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	lower := strings.ToLower(name)
	limit := max(2, len([]rune(name))/3)
	var found []scored
	for _, cand := range names {
		ln := strings.ToLower(cand)
		d := distance(lower, ln)
		if d > limit && (lower == "" || !strings.Contains(ln, lower) && !strings.Contains(lower, ln)) {
			continue
		}
		found = append(found, scored{cand, d})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	out := make([]string, 0, min(len(found), n))
	for _, s := range found {
		// Only the closest: "remot" suggests remote, not demo as well.
		if len(out) == n || s.d > found[0].d {
			break
		}
		out = append(out, s.name)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

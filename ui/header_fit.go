package ui

import (
	"slices"
	"strings"
)

// fitLine lays out the header's line: left are its parts (timeoutAt the
// index of the timeout, -1 for none), then the capabilities. On a narrow
// screen what matters least goes first, whole rather than cut mid-word:
// mcpoke's own capabilities, then the server's, then the timeout, then
// the counts in words (glyphs instead). The server, era, transport and
// state stay; only past all that is the left cut.
func (h *header) fitLine(left []string, timeoutAt int, sep string) (l, r string) {
	st := h.c.Styles
	var variants [][]string
	if caps := declaredView(h.peer, h.declared); caps != "" {
		variants = append(variants, append(slices.Clone(left), st.Muted.Render(caps)))
		server, _, _ := strings.Cut(caps, " ⇄ ")
		variants = append(variants, append(slices.Clone(left), st.Muted.Render("server "+server)))
	}
	variants = append(variants, left)
	if timeoutAt >= 0 {
		variants = append(variants, slices.Delete(slices.Clone(left), timeoutAt, timeoutAt+1))
	}
	words, glyphs := h.countsView(1<<30), h.countsView(0)
	for _, counts := range []string{words, glyphs} {
		for _, v := range variants {
			l := strings.Join(v, sep)
			if lipWidth(l)+lipWidth(counts)+2 <= h.width {
				return l, counts
			}
		}
	}
	l = strings.Join(variants[len(variants)-1], sep)
	r = h.countsView(max(h.width-lipWidth(l)-2, h.width/2))
	return clip(l, h.width-lipWidth(r)-2), r
}

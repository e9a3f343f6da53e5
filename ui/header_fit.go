package ui

import (
	"slices"
	"strings"
)

// headerLeft is the left of the header's line, with what may go when the
// screen is narrow: the timeout (timeoutAt, -1 for none), the era's name
// after its version (eraAt, eraShort without it; -1 for none), and the
// server's name (nameAt, -1 for none), cut before the rest. The health
// ping's round trip (healthAt, -1 for none) goes with the timeout.
type headerLeft struct {
	parts                              []string
	nameAt, timeoutAt, healthAt, eraAt int
	eraShort                           string
	// warnAt is the unanswered ping's warning (-1 for none), which
	// stays, as warnShort on a narrow screen.
	warnAt    int
	warnShort string
}

// fitLine lays out the header's line. On a narrow screen what matters
// least goes first, whole rather than cut mid-word: mcpoke's own
// capabilities, then the server's, then the timeout, then the counts in
// words (glyphs instead), then mcpoke's own name, then the era's name
// after its version. The server's name is cut before the rest. The server, the version, the transport and the state
// stay; only past all that is the line cut.
func (h *header) fitLine(left headerLeft, sep string) (l, r string) {
	st := h.c.Styles
	var optional [][]string
	if caps := declaredView(h.peer, h.declared); caps != "" && !h.attached {
		optional = append(optional, append(slices.Clone(left.parts), st.Muted.Render(caps)))
		server, _, _ := strings.Cut(caps, " ⇄ ")
		optional = append(optional, append(slices.Clone(left.parts), st.Muted.Render("server "+server)))
	}
	optional = append(optional, left.parts)
	least := slices.Clone(left.parts)
	if left.timeoutAt >= 0 || left.healthAt >= 0 {
		for _, at := range []int{left.timeoutAt, left.healthAt} {
			if at >= 0 {
				least[at] = ""
			}
		}
		optional = append(optional, least)
	}
	compact := slices.Clone(least)
	compact[0] = ""
	compacted := [][]string{slices.Clone(compact)}
	if left.eraAt >= 0 {
		compact[left.eraAt] = left.eraShort
		compacted = append(compacted, compact)
	}
	if left.warnAt >= 0 {
		compact = slices.Clone(compact)
		compact[left.warnAt] = left.warnShort
		compacted = append(compacted, compact)
	}
	join := func(parts []string) string {
		return strings.Join(slices.DeleteFunc(slices.Clone(parts), func(p string) bool { return p == "" }), sep)
	}
	fits := func(parts []string, counts string) (string, bool) {
		l := join(parts)
		return l, lipWidth(l)+lipWidth(counts)+2 <= h.width
	}
	words, glyphs := h.countsView(1<<30), h.countsView(0)
	for _, v := range optional {
		if l, ok := fits(v, words); ok {
			return l, words
		}
	}
	for _, v := range slices.Concat(optional, compacted) {
		if l, ok := fits(v, glyphs); ok {
			return l, glyphs
		}
	}
	// The server's name is cut to what the rest leaves it, and the line
	// only when that is not enough.
	if left.nameAt > 0 {
		rest := slices.Clone(compact)
		rest[left.nameAt] = ""
		if room := h.width - lipWidth(glyphs) - 2 - lipWidth(join(rest)) - lipWidth(sep); room >= 8 {
			compact[left.nameAt] = clip(compact[left.nameAt], room)
		}
	}
	l = join(compact)
	return clip(l, h.width-lipWidth(glyphs)-2), glyphs
}

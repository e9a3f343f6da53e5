package ui

import (
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// maxHiddenLines bounds the runs of hidden text the call editor lists;
// mcpoke tools lists them all.
const maxHiddenLines = 3

// hiddenLines say, above a tool's call form, what the tool hides: how
// much in how many fields, then what it spells and where, one line per
// different text so that one injection repeated in every field does not
// hide a second one.
func hiddenLines(st *styles, h mcp.HiddenText, w int) []string {
	if !h.Found() {
		return nil
	}
	out := []string{clip(st.BadgeWarn.Render("hidden text")+" "+h.Summary(), w)}
	seen := map[string]bool{}
	shown := 0
	for _, r := range h.Runs {
		what := cutLong(r.Escaped, w)
		if r.Text != "" {
			what = `spelling "` + cutLong(r.Text, w) + `"`
		}
		if seen[what] || shown == maxHiddenLines {
			continue
		}
		seen[what] = true
		shown++
		where := r.Field
		if r.Key {
			where += " (key)"
		}
		out = append(out, clip("  "+what+" "+st.Muted.Render("in "+where), w))
	}
	if more := h.RunCount - shown; more > 0 {
		out = append(out, st.Muted.Render(clip(fmt.Sprintf("  and %d more; mcpoke tools lists them", more), w)))
	}
	return out
}

// cutLong cuts s, safe text, to a length clip can take each frame: a
// run of hidden text can be megabytes long.
func cutLong(s string, w int) string {
	if n := 4 * max(w, 1); len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// hiddenBadge marks a tool that hides text in its name, description or
// schema, where a prompt injection hides; "" when it hides nothing.
func hiddenBadge(st *styles, h mcp.HiddenText, short bool) string {
	switch {
	case !h.Found():
		return ""
	case short:
		return st.BadgeWarn.Render("hidden")
	}
	return st.BadgeWarn.Render("hidden text")
}

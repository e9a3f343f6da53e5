package ui

import (
	"fmt"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// filterCount is a list's count for its title: " 3/12 /query" while a
// query filters it, " 12" once it is loaded, "" while it loads.
func filterCount(query string, shown, total int, loading bool) string {
	switch {
	case query != "":
		return fmt.Sprintf(" %d/%d /%s", shown, total, termtext.Line(query))
	case !loading:
		return fmt.Sprintf(" %d", total)
	}
	return ""
}

// noMatch is what a list says when its query hides every item.
func noMatch(st *styles, query string, w int) []string {
	return wrapLines(st.Muted.Render("no match for /"+termtext.Line(query)+"; esc clears"), w)
}

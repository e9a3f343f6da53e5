package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// maxHiddenShown bounds the runs of hidden text `tools` lists per tool;
// --json lists more.
const maxHiddenShown = 10

// printHidden says what a tool hides, if anything: how many characters
// in which fields, and what tag characters spell, which is where a
// prompt injection hides from the person reading the description.
func printHidden(w io.Writer, h mcp.HiddenText) {
	if !h.Found() {
		return
	}
	fmt.Fprintf(w, "  ! hidden text: %s\n", h.Summary())
	for i, r := range h.Runs {
		if i == maxHiddenShown {
			fmt.Fprintf(w, "    … %d more (mcpoke tools --json lists %d)\n", h.RunCount-i, len(h.Runs))
			return
		}
		fmt.Fprintf(w, "    %s\n", r)
	}
	if h.RunCount > len(h.Runs) {
		fmt.Fprintf(w, "    … %d more\n", h.RunCount-len(h.Runs))
	}
}

// countHiding is how many tools hide text.
func countHiding(tools []mcp.Tool) int {
	n := 0
	for _, t := range tools {
		if t.Hidden.Found() {
			n++
		}
	}
	return n
}

// toolHidden is a tool's hidden text in `tools --json`.
type toolHidden struct {
	Tool   string `json:"tool"`
	Chars  int    `json:"chars"`
	Fields int    `json:"fields"`
	// Runs are the first runs; RunsNotListed says how many more.
	Runs          []hiddenRun `json:"runs"`
	RunsNotListed int         `json:"runsNotListed,omitempty"`
}

// hiddenRun is one run of hidden characters in `tools --json`.
type hiddenRun struct {
	// Path is the string's JSON Pointer in the output: /tools/0/description.
	Path string `json:"path"`
	// Key: the run is in the key Path ends with, not in its value.
	Key   bool   `json:"key,omitempty"`
	Start int    `json:"start"` // byte offsets in the string
	End   int    `json:"end"`
	Chars int    `json:"chars"`
	Kinds string `json:"kinds"`
	// Text is what the run spells (tag characters, variation selectors).
	Text string `json:"text,omitempty"`
}

// hiddenOf lists the hidden text of every tool that has some.
func hiddenOf(tools []mcp.Tool) []toolHidden {
	var out []toolHidden
	for i, t := range tools {
		h := t.Hidden
		if !h.Found() {
			continue
		}
		th := toolHidden{Tool: t.Name, Chars: h.Chars, Fields: h.Fields, RunsNotListed: h.RunCount - len(h.Runs)}
		for _, r := range h.Runs {
			th.Runs = append(th.Runs, hiddenRun{Path: "/tools/" + strconv.Itoa(i) + r.Pointer, Key: r.Key,
				Start: r.Start, End: r.End, Chars: r.Count, Kinds: r.Kinds.String(), Text: r.Text})
		}
		out = append(out, th)
	}
	return out
}

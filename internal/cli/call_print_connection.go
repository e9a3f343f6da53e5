package cli

import (
	"fmt"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// printConnection writes what else happened on the connection: duplicate
// responses to the call, noise, oversize frames, malformed messages and
// protocol violations, each a count and the first few, quoted safely.
func printConnection(line func(label, format string, a ...any), r *callReport) {
	c := r.connectionReport
	if n := c.Duplicates.Count; n > 0 {
		line("duplicate", "%s to this request, the first at %s", english.Plural(n, "more response"), human(c.Duplicates.First[0].AtMs))
	}
	seenLines := func(label, one, many string, k counted[seen]) {
		if k.Count == 0 {
			return
		}
		line(label, "%s", english.Count(k.Count, one, many))
		for _, s := range k.First {
			text := termtext.Line(s.Frame)
			if s.Size > len(s.Frame) {
				text += fmt.Sprintf("… (%d bytes)", s.Size)
			}
			if s.Why != "" {
				text = termtext.Line(s.Why) + ": " + text
			}
			line("", "at %s: %s", human(s.AtMs), text)
		}
		if k.Count > len(k.First) {
			line("", "… %d more not shown", k.Count-len(k.First))
		}
	}
	seenLines("noise", "line that is not JSON", "lines that are not JSON", c.Noise)
	seenLines("oversize", "frame over the size limit, skipped", "frames over the size limit, skipped", c.Oversize)
	seenLines("malformed", "message that is not usable JSON-RPC", "messages that are not usable JSON-RPC", c.Malformed)
	if n := c.Violations.Count; n > 0 {
		line("protocol", "%s by the server", english.Plural(n, "violation"))
		for _, v := range c.Violations.First {
			line("", "at %s: %s: %s", human(v.AtMs), v.Kind, termtext.Line(v.Detail))
		}
		if n > len(c.Violations.First) {
			line("", "… %d more not shown (--json counts them; --transcript lists each)", n-len(c.Violations.First))
		}
	}
}

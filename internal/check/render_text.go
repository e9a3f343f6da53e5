package check

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// WriteText writes the report for a terminal: a line per check with its
// grade, the sentence it tests and the evidence. Every string that came
// from the server passes termtext.
func WriteText(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpoke check: %s %s (protocol %s, %s)\n", termtext.Line(rep.Server.Name), termtext.Line(rep.Server.Version),
		termtext.Line(rep.Protocol), rep.Transport)
	if rep.Tool != nil {
		fmt.Fprintf(&b, "tool: %s %s: %s\n", termtext.Line(rep.Tool.Name), termtext.Line(string(rep.Tool.Args)), termtext.Line(rep.Tool.Why))
	}
	for _, c := range rep.Checks {
		fmt.Fprintf(&b, "\n%-4s  %d  %s\n", strings.ToUpper(string(c.Status)), c.ID, c.Title)
		fmt.Fprintf(&b, "         %s %s: %q (%s)\n", c.Level, versionRange(c.Versions), c.Sentence, c.Spec)
		if c.Reason != "" {
			fmt.Fprintf(&b, "         %s\n", termtext.Line(c.Reason))
		}
		for _, f := range c.Evidence.Facts {
			fmt.Fprintf(&b, "         - %s\n", termtext.Line(f))
		}
		for _, f := range c.Evidence.Frames {
			fmt.Fprintf(&b, "         %s:\n           %s\n", termtext.Line(f.Note), termtext.Line(f.Frame))
		}
	}
	fmt.Fprintf(&b, "\n%s in %s: %s\n", summaryLine(rep.Summary), runTime(rep), verdict(rep))
	_, err := io.WriteString(w, b.String())
	return err
}

// versionRange names the versions a sentence is in: "2024-11-05 to 2026-07-28".
func versionRange(vs []string) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return vs[0] + " to " + vs[len(vs)-1]
}

// runTime is how long the run took, to a tenth of a second.
func runTime(rep *Report) time.Duration {
	return (time.Duration(rep.Ms) * time.Millisecond).Round(100 * time.Millisecond)
}

func summaryLine(s Summary) string {
	return fmt.Sprintf("%d of %d checks ran: %d pass, %d warn, %d fail, %d skip", s.Ran, s.Selected, s.Pass, s.Warn, s.Fail, s.Skip)
}

func verdict(rep *Report) string {
	if rep.MustFailed() {
		return "a MUST failed"
	}
	return "no MUST failed"
}

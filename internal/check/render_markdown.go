package check

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// WriteMarkdown writes the report ready to paste into an issue tracker:
// a table of the grades, then each check's evidence. Server text is
// escaped for the terminal and for Markdown.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### mcpoke check: %s %s\n\n", md(rep.Server.Name), md(rep.Server.Version))
	fmt.Fprintf(&b, "Protocol `%s` over %s", md(rep.Protocol), rep.Transport)
	if rep.Tool != nil {
		fmt.Fprintf(&b, "; tool `%s` with `%s`: %s", md(rep.Tool.Name), md(string(rep.Tool.Args)), md(rep.Tool.Why))
	}
	fmt.Fprintf(&b, ".\n\n%s in %s: %s.\n\n", summaryLine(rep.Summary), runTime(rep), verdict(rep))
	b.WriteString("| # | Check | Level | Status |\n|---|---|---|---|\n")
	for _, c := range rep.Checks {
		fmt.Fprintf(&b, "| %d | %s | %s | **%s** |\n", c.ID, c.Title, c.Level, strings.ToUpper(string(c.Status)))
	}
	for _, c := range rep.Checks {
		fmt.Fprintf(&b, "\n#### %d. %s: %s\n\n", c.ID, c.Title, strings.ToUpper(string(c.Status)))
		fmt.Fprintf(&b, "> %s (%s; %s, %s)\n\n", c.Sentence, c.Level, c.Spec, versionRange(c.Versions))
		if c.Reason != "" {
			fmt.Fprintf(&b, "Skipped: %s\n", md(c.Reason))
		}
		for _, f := range c.Evidence.Facts {
			fmt.Fprintf(&b, "- %s\n", md(f))
		}
		for _, f := range c.Evidence.Frames {
			fmt.Fprintf(&b, "\n%s:\n\n```json\n%s\n```\n", md(f.Note), strings.ReplaceAll(termtext.Line(f.Frame), "```", "`\u200b``"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// md makes server text safe for the terminal and inert in Markdown: no
// table breaks, no HTML.
func md(s string) string {
	s = termtext.Line(s)
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}

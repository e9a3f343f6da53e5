package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// WriteCardJSON writes the card as indented JSON.
func WriteCardJSON(w io.Writer, rep *CardReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteCardMarkdown writes the card ready to paste into an issue: a table
// of the grades by section, then each line's sentence and evidence. The
// host's words (its name, reasons, ids) are made safe for the terminal
// and inert in Markdown.
func WriteCardMarkdown(w io.Writer, rep *CardReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### mcpoke proxy: report card of %s\n\n", cardMD(rep.Host))
	fmt.Fprintf(&b, "Protocol `%s` over %s, %d requests from the host.\n\n", cardMD(rep.Protocol), rep.Transport, rep.Requests)
	b.WriteString("| Section | Line | Level | Status |\n|---|---|---|---|\n")
	for _, l := range rep.Lines {
		level := string(l.Level)
		if level == "" {
			level = "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | **%s** |\n", l.Section, l.Title, level, strings.ToUpper(string(l.Status)))
	}
	for _, l := range rep.Lines {
		fmt.Fprintf(&b, "\n#### %s: %s: %s\n\n", l.Section, l.Title, strings.ToUpper(string(l.Status)))
		level := string(l.Level)
		if level == "" {
			level = "no level: a risk, not a rule"
		}
		fmt.Fprintf(&b, "> %s (%s; %s)\n\n", l.Sentence, level, l.Spec)
		for _, f := range l.Facts {
			fmt.Fprintf(&b, "- %s\n", cardMD(f))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func cardMD(s string) string {
	s = termtext.Line(s)
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}

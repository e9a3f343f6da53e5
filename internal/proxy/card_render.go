package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpoke/mcpoke/internal/check"
	"github.com/mcpoke/mcpoke/internal/english"
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
// and inert in Markdown. A card of several host sessions lists them,
// then gives each session's card under its label.
func WriteCardMarkdown(w io.Writer, rep *CardReport) error {
	var b strings.Builder
	if len(rep.Sessions) == 0 {
		fmt.Fprintf(&b, "### mcpoke proxy: report card of %s\n\n", cardMD(rep.Host))
		writeCardBody(&b, "####", rep.Protocol, rep.Transport, "the host", rep.Requests, rep.Lines)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "### mcpoke proxy: report card of %s\n\n", english.Count(len(rep.Sessions), "host session", "host sessions"))
	fmt.Fprintf(&b, "Over %s, %s from the hosts. Each session is graded on its own below.\n\n",
		rep.Transport, english.Plural(rep.Requests, "request"))
	b.WriteString("| Session | Host | Protocol | Requests | Fail | Warn | Pass |\n|---|---|---|---|---|---|---|\n")
	for _, s := range rep.Sessions {
		n := map[check.Status]int{}
		for _, l := range s.Lines {
			n[l.Status]++
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %d | %d | %d | %d |\n", cardMD(SessionName(s.Session)), cardMD(s.Host), cardMD(s.Protocol),
			s.Requests, n[check.Fail], n[check.Warn], n[check.Pass])
	}
	if rep.Ungraded > 0 {
		fmt.Fprintf(&b, "\n%s past the card's bound %s not graded.\n", english.Count(rep.Ungraded, "more session", "more sessions"),
			map[bool]string{true: "was", false: "were"}[rep.Ungraded == 1])
	}
	for _, s := range rep.Sessions {
		fmt.Fprintf(&b, "\n#### Session %s: report card of %s\n\n", cardMD(SessionName(s.Session)), cardMD(s.Host))
		writeCardBody(&b, "#####", s.Protocol, rep.Transport, "the host", s.Requests, s.Lines)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCardBody writes one host's grades: its era, the table, then each
// line under a heading of level heading.
func writeCardBody(b *strings.Builder, heading, protocol, transport, who string, requests int, lines []CardLine) {
	fmt.Fprintf(b, "Protocol `%s` over %s, %s from %s.\n\n", cardMD(protocol), transport, english.Plural(requests, "request"), who)
	b.WriteString("| Section | Line | Level | Status |\n|---|---|---|---|\n")
	for _, l := range lines {
		level := string(l.Level)
		if level == "" {
			level = "-"
		}
		fmt.Fprintf(b, "| %s | %s | %s | **%s** |\n", l.Section, l.Title, level, strings.ToUpper(string(l.Status)))
	}
	for _, l := range lines {
		fmt.Fprintf(b, "\n%s %s: %s: %s\n\n", heading, l.Section, l.Title, strings.ToUpper(string(l.Status)))
		level := string(l.Level)
		if level == "" {
			level = "no level: a risk, not a rule"
		}
		fmt.Fprintf(b, "> %s (%s; %s)\n\n", l.Sentence, level, l.Spec)
		for _, f := range l.Facts {
			fmt.Fprintf(b, "- %s\n", cardMD(f))
		}
	}
}

func cardMD(s string) string {
	s = termtext.Line(s)
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}

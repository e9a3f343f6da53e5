package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// What a question says, for its panel and its row's detail. Every string
// is the server's: each passes termtext.

// samplingLines shows a sampling request: the conversation, the system
// prompt, the model preferences and the limits.
func samplingLines(st *styles, s *mcp.SamplingRequest) []string {
	var out []string
	out = append(out, st.Key.Render("messages")+st.Muted.Render(" "+english.Plural(len(s.Messages), "message")))
	for _, m := range s.Messages {
		role := termtext.Line(m.Role)
		for i, c := range m.Content {
			head := "  " + st.Strong.Render(fmt.Sprintf("%-9s", role))
			if i > 0 {
				head = "  " + strings.Repeat(" ", 9)
			}
			out = append(out, head+" "+contentText(st, c))
		}
		if len(m.Content) == 0 {
			out = append(out, "  "+st.Strong.Render(fmt.Sprintf("%-9s", role))+" "+st.Muted.Render("(no content)"))
		}
	}
	if s.SystemPrompt != "" {
		out = append(out, st.Key.Render("system prompt"), indent(termtext.Block(s.SystemPrompt)))
	}
	if mp := s.ModelPreferences; mp != nil {
		var prefs []string
		if len(mp.Hints) > 0 {
			hints := make([]string, len(mp.Hints))
			for i, h := range mp.Hints {
				hints[i] = termtext.Quote(h)
			}
			prefs = append(prefs, "hints "+strings.Join(hints, ", "))
		}
		for _, p := range []struct {
			name string
			v    *float64
		}{{"cost", mp.CostPriority}, {"speed", mp.SpeedPriority}, {"intelligence", mp.IntelligencePriority}} {
			if p.v != nil {
				prefs = append(prefs, p.name+" "+strconv.FormatFloat(*p.v, 'f', -1, 64))
			}
		}
		if len(prefs) > 0 {
			out = append(out, st.Key.Render("model preferences")+" "+strings.Join(prefs, " · "))
		}
	}
	limits := []string{}
	if s.MaxTokens > 0 {
		limits = append(limits, "max tokens "+strconv.Itoa(s.MaxTokens))
	} else {
		limits = append(limits, "max tokens not given (the spec requires it)")
	}
	if s.Temperature != nil {
		limits = append(limits, "temperature "+strconv.FormatFloat(*s.Temperature, 'f', -1, 64))
	}
	if len(s.StopSequences) > 0 {
		q := make([]string, len(s.StopSequences))
		for i, x := range s.StopSequences {
			q[i] = termtext.Quote(x)
		}
		limits = append(limits, "stop at "+strings.Join(q, ", "))
	}
	if s.IncludeContext != "" && s.IncludeContext != "none" {
		limits = append(limits, "includeContext "+termtext.Line(s.IncludeContext)+" (not declared: mcpoke adds none)")
	}
	out = append(out, st.Key.Render("limits")+" "+strings.Join(limits, " · "))
	if len(s.Tools) > 0 {
		out = append(out, st.BadgeWarn.Render(fmt.Sprintf("offers %s for the model to call, though mcpoke did not declare sampling.tools",
			english.Plural(len(s.Tools), "tool"))))
	}
	return out
}

// contentText is one content block in a line or a few.
func contentText(st *styles, c mcp.ContentBlock) string {
	switch c.Type {
	case "text":
		return termtext.Block(c.Text)
	case "image", "audio":
		return st.Muted.Render(fmt.Sprintf("[%s %s, %s of base64]", c.Type, termtext.Line(c.MimeType), byteSize(c.DataLen)))
	}
	return st.Muted.Render("["+termtext.Line(c.Type)+"] ") + termtext.Line(string(c.Raw))
}

// urlLines shows a url elicitation's URL in full (the spec asks clients to
// show it before consent), its host set apart, and what to beware of.
func urlLines(st *styles, e *mcp.ElicitRequest) []string {
	host, warnings := mcp.URLWarnings(e.URL)
	out := []string{
		st.Key.Render("url") + " " + termtext.Line(e.URL),
		st.Key.Render("host") + " " + st.Strong.Render(termtext.Line(host)),
	}
	for _, w := range warnings {
		out = append(out, st.BadgeWarn.Render("⚠ "+termtext.Line(w)))
	}
	out = append(out, st.Muted.Render("elicitation id "+termtext.Line(e.ElicitationID)))
	return out
}

// formLines summarizes a form elicitation's fields, for the detail.
func formLines(st *styles, e *mcp.ElicitRequest) []string {
	out := []string{st.Key.Render("form") + st.Muted.Render(" "+english.Plural(len(e.Schema.Properties), "field"))}
	for _, p := range e.Schema.Properties {
		mark := " "
		if p.Required {
			mark = "*"
		}
		line := fmt.Sprintf("  %s %s", mark, termtext.Line(p.Name))
		if p.Default != nil {
			line += st.Muted.Render(" default " + termtext.Line(string(compact(p.Default))))
		}
		out = append(out, line)
	}
	if e.SchemaErr != nil {
		out = append(out, st.BadgeWarn.Render("the schema does not compile; answers go unchecked: "+termtext.Line(e.SchemaErr.Error())))
	}
	return out
}

package diagram

import (
	"strings"
)

// spanFill is the rect's colour: a light grey that reads on light and
// dark themes alike.
const spanFill = "rgba(128, 128, 128, 0.12)"

// Mermaid renders l as a Mermaid sequenceDiagram, the form the MCP
// specification draws cancellation in; it renders in GitHub issues
// inside a ```mermaid block. Times are notes left of mcpoke; the span
// after the cancel is a rect; ignored traffic ends in a cross.
func Mermaid(l Life) string {
	var b strings.Builder
	line := func(s string) { b.WriteString("    " + s + "\n") }
	b.WriteString("sequenceDiagram\n")
	line("participant mcpoke")
	line("participant server")
	head := l.Title
	if l.Server != "" {
		head += " · server " + l.Server
	}
	line("Note over mcpoke,server: " + mermaidText(head))
	inSpan := false
	for _, a := range l.Arrows {
		if l.After != nil && !inSpan && opensSpan(l, a) {
			line("rect " + spanFill)
			line("Note over mcpoke,server: " + mermaidText(l.After.Label))
			inSpan = true
		}
		line("Note left of mcpoke: " + mermaidText(when(a)))
		line(a.From.Name() + mermaidArrow(a) + a.From.other().Name() + ": " + mermaidText(a.Label))
	}
	if l.After != nil && !inSpan {
		line("rect " + spanFill)
		line("Note over mcpoke,server: " + mermaidText(l.After.Label))
		line("Note over mcpoke,server: " + mermaidText("nothing more in the transcript, which ends at "+offset(l.After.To)))
		inSpan = true
	}
	if inSpan {
		line("end")
	}
	line("Note over mcpoke,server: " + mermaidText(l.Outcome))
	return b.String()
}

func (l Lane) other() Lane {
	if l == Client {
		return Server
	}
	return Client
}

// mermaidArrow is the arrow for a: solid for a request, dashed for its
// answer, an open async arrow for a notification, a cross for ignored
// traffic.
func mermaidArrow(a Arrow) string {
	switch {
	case a.Ignored:
		return "--x"
	case a.Kind.isRequest():
		return "->>"
	case a.Kind.isNotification():
		return "--)"
	}
	return "-->>"
}

// mermaidText escapes text for a message or note: Mermaid ends a
// statement at ; and newlines, reads # as the start of an entity code,
// and renders < > & as HTML. Each becomes an entity code, which Mermaid
// draws as the character itself. Text is already termtext-safe.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '#':
			b.WriteString("#35;")
		case ';':
			b.WriteString("#59;")
		case '"':
			b.WriteString("#quot;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '&':
			b.WriteString("#amp;")
		case '%':
			b.WriteString("#37;")
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "-"
	}
	return b.String()
}

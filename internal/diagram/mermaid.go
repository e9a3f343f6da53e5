package diagram

import (
	"strings"
)

// spanFills are the rects' colours, light enough to read on light and
// dark themes alike: grey for the time after the cancel, red for a
// timeout's wait, amber for the settle window.
var spanFills = map[SpanKind]string{
	SpanAfter:   "rgba(128, 128, 128, 0.12)",
	SpanTimeout: "rgba(220, 50, 50, 0.12)",
	SpanSettle:  "rgba(230, 160, 0, 0.15)",
}

// Mermaid renders l as a Mermaid sequenceDiagram, the form the MCP
// specification draws cancellation in; it renders in GitHub issues
// inside a ```mermaid block. Times are notes left of mcpoke; each span
// is a rect with its label as a note; ignored traffic ends in a cross.
func Mermaid(l Life) string {
	var b strings.Builder
	line := func(s string) { b.WriteString("    " + s + "\n") }
	note := func(s string) { line("Note over mcpoke,server: " + mermaidText(s)) }
	b.WriteString("sequenceDiagram\n")
	if l.Client != "" {
		line("participant mcpoke as " + l.Client) // the lanes keep their ids
	} else {
		line("participant mcpoke")
	}
	line("participant server")
	head := l.Title
	if l.Server != "" {
		head += " · server " + l.Server
	}
	note(head)
	for _, st := range l.Steps() {
		switch st.Kind {
		case StepOpen:
			line("rect " + spanFills[st.Span.Kind])
			note(spanOpenText(st.Span))
		case StepClose:
			if saysNothingMore(&l, st) {
				note(nothingMore(l))
			}
			if t := spanCloseText(st.Span); t != "" {
				line("Note left of mcpoke: " + mermaidText(offset(st.Span.To)))
				note(t)
			}
			line("end")
		case StepArrow:
			a := st.Arrow
			line("Note left of mcpoke: " + mermaidText(when(*a)))
			line(a.From.Name() + mermaidArrow(*a) + a.From.other().Name() + ": " + mermaidText(a.Label))
		}
	}
	note(l.Outcome)
	return b.String()
}

// mermaidArrow is the arrow for a: solid for a request, dashed for its
// answer, an open async arrow for a notification, a cross for ignored
// traffic.
func mermaidArrow(a Arrow) string {
	switch {
	case a.Ignored && !a.PassedOn:
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

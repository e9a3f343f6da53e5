package ui

import (
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// targetKind says what the argument editor's send does.
type targetKind int

const (
	targetTool targetKind = iota
	targetPrompt
	targetTemplate
)

// editorTarget is what the argument editor sends: a tools/call, a
// prompts/get with the prompt's arguments, or a resources/read of a
// template filled with its variables. Prompts and templates complete
// their arguments (completion/complete with ref).
type editorTarget struct {
	kind targetKind
	// name is the prompt's name or the template's URI template.
	name string
	// complete: the server declared completions.
	complete bool
}

// ref is the completion reference of a prompt or template.
func (t editorTarget) ref() mcp.CompletionRef {
	if t.kind == targetTemplate {
		return mcp.TemplateRef(t.name)
	}
	return mcp.PromptRef(t.name)
}

// verb heads the editor's title.
func (t editorTarget) verb() string {
	switch t.kind {
	case targetPrompt:
		return "GET PROMPT"
	case targetTemplate:
		return "READ TEMPLATE"
	}
	return "CALL"
}

// noArguments is what the form says when there is nothing to fill in.
func (t editorTarget) noArguments() string {
	switch t.kind {
	case targetPrompt:
		return "this prompt takes no arguments; press enter to get it"
	case targetTemplate:
		return "this template has no variables; press enter to read it"
	}
	return "this tool takes no arguments; press enter to call it"
}

// memoryKey is where the editor remembers what was last sent: tools,
// prompts and templates apart, as their names may be the same.
func (e *argEditor) memoryKey() string {
	switch e.target.kind {
	case targetPrompt:
		return "prompt\x00" + e.tool.Name
	case targetTemplate:
		return "template\x00" + e.tool.Name
	}
	return e.tool.Name
}

// completionKey names one completion: for which editor opening, which
// field and what value, and its place in the order they were asked for.
type completionKey struct {
	field, value string
	n            int
}

// suggestions are the completion shown under the focused field.
type suggestions struct {
	key     completionKey
	values  []string
	total   *int
	hasMore bool
	// pick is the value last put in the field with the pick keys; -1
	// before any.
	pick int
	// waiting: a completion for the field's value is due or in flight.
	waiting bool
	err     string
}

// fieldValue is the focused form field's name and text.
type fieldValue struct{ field, value string }

// focusedValue is the focused text field and its value; zero in the JSON
// editor or on a choice field, which nothing completes.
func (e *argEditor) focusedValue() fieldValue {
	if e.jsonMode || len(e.fields) == 0 || e.focus >= len(e.fields) {
		return fieldValue{}
	}
	f := e.fields[e.focus]
	if f.isChoice() || f.kind != fieldString {
		return fieldValue{}
	}
	return fieldValue{f.name, f.input.Value()}
}

// otherValues are the filled-in string fields but field: the context a
// completion sends, as the spec asks for arguments that depend on others.
func (e *argEditor) otherValues(field string) map[string]string {
	out := map[string]string{}
	for _, f := range e.fields {
		if f.name == field || f.kind != fieldString || f.isChoice() {
			continue
		}
		if v := f.input.Value(); v != "" {
			out[f.name] = v
		}
	}
	return out
}

// pickSuggestion puts the next (n=1) or previous (n=-1) suggestion in the
// focused field; it reports whether there was one.
func (e *argEditor) pickSuggestion(n int) bool {
	s := &e.suggest
	fv := e.focusedValue()
	if len(s.values) == 0 || fv.field != s.key.field {
		return false
	}
	s.pick = ((s.pick+n)%len(s.values) + len(s.values)) % len(s.values)
	f := e.fields[e.focus]
	f.input.SetValue(s.values[s.pick])
	f.input.CursorEnd()
	return true
}

// maxSuggestionsShown bounds the values listed under a field.
const maxSuggestionsShown = 8

// suggestLines are the completion's lines under the focused field.
func (e *argEditor) suggestLines() []string {
	s := e.suggest
	fv := e.focusedValue()
	if !e.target.complete || fv.field == "" || s.key.field != fv.field {
		return nil
	}
	st := e.c.Styles
	w := e.width - 4
	switch {
	case s.err != "":
		return []string{"  " + st.FieldError.Render(clip("completion: "+termtext.Line(s.err), w))}
	case len(s.values) == 0 && s.waiting:
		return []string{"  " + st.Muted.Render("completing…")}
	case len(s.values) == 0:
		return []string{"  " + st.Muted.Render("no completion")}
	}
	var shown []string
	for i, v := range s.values {
		if i == maxSuggestionsShown {
			break
		}
		text := termtext.Line(v)
		if i == s.pick {
			text = st.FieldFocused.Render(text)
		}
		shown = append(shown, text)
	}
	more := ""
	if n := len(s.values) - len(shown); n > 0 {
		more = fmt.Sprintf(" +%d", n)
	}
	if s.total != nil && *s.total > len(s.values) || s.hasMore {
		more += " (the server has more)"
	}
	keys := e.c.Keys.Editor
	head := "  ↳ " + strings.Join(shown, ", ") + st.Muted.Render(more)
	hint := st.Muted.Render(fmt.Sprintf("    %s/%s picks one of %s", keys.NextSuggestion.Help().Key,
		keys.PrevSuggestion.Help().Key, english.Plural(len(s.values), "suggestion")))
	if s.waiting {
		hint = st.Muted.Render("    completing…")
	}
	return append(wrapLines(head, w), hint)
}

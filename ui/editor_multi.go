package ui

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// A multi field picks several of its choices (an array of an enum, as
// elicitation forms ask): ←/→ move between them, space picks one.

// multiValue is the picked choices as a JSON array, in the schema's
// order; nothing picked leaves an optional field out.
func (f *formField) multiValue() (json.RawMessage, bool) {
	var b bytes.Buffer
	b.WriteByte('[')
	n := 0
	for i, on := range f.checked {
		if !on {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(compact(f.choices[i]))
	}
	b.WriteByte(']')
	if n == 0 && !f.required {
		return nil, false
	}
	return b.Bytes(), true
}

// setMulti picks the choices of v, a JSON array of them (nil: none); it
// reports false when v holds anything else.
func (f *formField) setMulti(v json.RawMessage) bool {
	picked := make([]bool, len(f.choices))
	if v != nil {
		var vals []json.RawMessage
		if json.Unmarshal(v, &vals) != nil {
			return false
		}
	next:
		for _, val := range vals {
			for i, c := range f.choices {
				if bytes.Equal(compact(c), compact(val)) {
					picked[i] = true
					continue next
				}
			}
			return false
		}
	}
	f.checked = picked
	return true
}

// moveMulti moves the multi field's cursor by n; toggleMulti picks or
// drops the choice under it.
func (f *formField) moveMulti(n int) {
	f.choice = min(max(f.choice+n, 0), len(f.choices)-1)
}

func (f *formField) toggleMulti() { f.checked[f.choice] = !f.checked[f.choice] }

// multiText renders every choice with its box, the cursor's marked when
// focused: "[x] Guitar  ›[ ] Piano".
func (f *formField) multiText(focused bool, mark func(string) string) string {
	parts := make([]string, len(f.choices))
	for i, c := range f.choices {
		box := "[ ] "
		if f.checked[i] {
			box = "[x] "
		}
		label := ""
		if i < len(f.labels) && f.labels[i] != "" {
			label = termtext.Line(f.labels[i])
		} else {
			var s string
			if json.Unmarshal(c, &s) == nil {
				label = termtext.Line(s)
			} else {
				label = termtext.Line(string(c))
			}
		}
		item := box + label
		if focused && i == f.choice {
			item = mark(item)
		}
		parts[i] = item
	}
	return strings.Join(parts, "  ")
}

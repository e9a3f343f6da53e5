package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// fieldKind is the type of a form field.
type fieldKind int

const (
	fieldString fieldKind = iota
	fieldNumber
	fieldInteger
	fieldBoolean
	fieldEnum
	// fieldMulti picks several of its choices: an array of an enum.
	fieldMulti
)

var fieldKindNames = [...]string{"string", "number", "integer", "boolean", "enum", "several"}

// formField is one top-level property of a simple inputSchema.
type formField struct {
	name        string
	kind        fieldKind
	required    bool
	description string

	input textinput.Model // string, number, integer
	// choices are the JSON values a boolean or enum field steps through;
	// an optional field without a default starts on "unset" (nil).
	// labels are their titles from the schema, "" where it gives none.
	choices []json.RawMessage
	labels  []string
	choice  int
	// checked marks the choices a multi field picked; choice is its
	// cursor.
	checked []bool
	err     string
}

// buildForm returns the fields of a simple object schema: properties of
// type string, number, integer or boolean, or with a scalar enum, in the
// schema's order. For anything else it returns ok=false and the editor
// uses JSON.
func buildForm(tool mcp.Tool) (fields []*formField, ok bool) {
	if tool.InputSchema == nil {
		return nil, true // no schema: no arguments
	}
	in := tool.Input
	if in.Err != nil || !in.IsObject() || in.Composite {
		return nil, false
	}
	for _, p := range in.Properties {
		if p.Err != nil || p.Const != nil {
			return nil, false
		}
		f := &formField{name: p.Name, required: p.Required, description: p.Description}
		if f.description == "" {
			f.description = p.Title
		}
		opts, multi, isChoice := mcp.EnumOptions(p)
		switch {
		case isChoice:
			f.kind = fieldEnum
			if multi {
				f.kind = fieldMulti
			}
			for _, o := range opts {
				f.choices = append(f.choices, o.Value)
				f.labels = append(f.labels, o.Title)
			}
		case p.Nested:
			return nil, false
		case p.IsType("string"):
			f.kind = fieldString
		case p.IsType("number"):
			f.kind = fieldNumber
		case p.IsType("integer"):
			f.kind = fieldInteger
		case p.IsType("boolean"):
			f.kind = fieldBoolean
			f.choices = []json.RawMessage{json.RawMessage("false"), json.RawMessage("true")}
		default:
			return nil, false
		}
		f.setup(p.Default)
		fields = append(fields, f)
	}
	return fields, true
}

// setup prepares the field's input and puts the default in it.
func (f *formField) setup(def json.RawMessage) {
	if f.kind == fieldMulti {
		f.checked = make([]bool, len(f.choices))
		f.setValue(def)
		return
	}
	if f.kind == fieldBoolean || f.kind == fieldEnum {
		if !f.required && def == nil {
			f.choices = append([]json.RawMessage{nil}, f.choices...)
			if f.labels != nil {
				f.labels = append([]string{""}, f.labels...)
			}
		}
		for i, c := range f.choices {
			if c != nil && def != nil && bytes.Equal(compact(c), compact(def)) {
				f.choice = i
			}
		}
		return
	}
	f.input = textinput.New()
	f.input.Prompt = ""
	s := f.input.Styles()
	s.Cursor.Blink = false
	f.input.SetStyles(s)
	if def != nil {
		var str string
		switch {
		case f.kind == fieldString && json.Unmarshal(def, &str) == nil && termtext.Line(str) == str:
			f.input.SetValue(str)
		case f.kind == fieldString && str != "":
			// A default with hidden characters is shown escaped and not
			// filled in: sending it would send what the user cannot see.
			f.input.Placeholder = "default " + termtext.Line(str)
		case f.kind != fieldString:
			f.input.SetValue(escapeJSONText(string(compact(def))))
		}
	}
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// isChoice reports whether the field is stepped rather than typed.
func (f *formField) isChoice() bool {
	return f.kind == fieldBoolean || f.kind == fieldEnum || f.kind == fieldMulti
}

// Step moves a choice field by n.
func (f *formField) Step(n int) {
	if len(f.choices) > 0 {
		f.choice = ((f.choice+n)%len(f.choices) + len(f.choices)) % len(f.choices)
	}
}

// Focus moves the text cursor into the field.
func (f *formField) Focus() tea.Cmd {
	if f.isChoice() {
		return nil
	}
	return f.input.Focus()
}

// Blur takes the text cursor out of the field.
func (f *formField) Blur() {
	if !f.isChoice() {
		f.input.Blur()
	}
}

// value is the field's JSON value; ok=false means leave it out. A value
// that does not parse sets f.err.
func (f *formField) value() (json.RawMessage, bool) {
	f.err = ""
	if f.kind == fieldMulti {
		return f.multiValue()
	}
	if f.isChoice() {
		c := f.choices[f.choice]
		return c, c != nil
	}
	s := f.input.Value()
	if strings.TrimSpace(s) == "" {
		if f.required {
			f.err = "required" // "" on purpose needs the JSON editor
		}
		return nil, false
	}
	switch f.kind {
	case fieldNumber:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			f.err = "not a number"
			return nil, false
		}
		b, _ := json.Marshal(v)
		return b, true
	case fieldInteger:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			f.err = "not an integer"
			return nil, false
		}
		return json.RawMessage(strconv.FormatInt(v, 10)), true
	}
	b, _ := json.Marshal(s)
	return b, true
}

// setValue fills the field from a JSON value, as when switching from the
// JSON editor back to the form. It reports whether the value fits.
func (f *formField) setValue(v json.RawMessage) bool {
	if f.kind == fieldMulti {
		return f.setMulti(v)
	}
	if f.isChoice() && v == nil {
		if f.choices[0] == nil {
			f.choice = 0 // unset
		}
		return true
	}
	if f.isChoice() {
		for i, c := range f.choices {
			if c != nil && bytes.Equal(compact(c), compact(v)) {
				f.choice = i
				return true
			}
		}
		return false
	}
	if v == nil {
		f.input.SetValue("")
		return true
	}
	if f.kind == fieldString {
		var s string
		if json.Unmarshal(v, &s) != nil || termtext.Line(s) != s {
			return false // hidden characters stay in the JSON, escaped
		}
		f.input.SetValue(s)
		f.input.CursorEnd()
		return true
	}
	var n json.Number
	if json.Unmarshal(v, &n) != nil {
		return false
	}
	f.input.SetValue(n.String())
	f.input.CursorEnd() // typing goes on from the end, as after a default
	return true
}

// choiceText renders the current choice.
func (f *formField) choiceText() string {
	c := f.choices[f.choice]
	if c == nil {
		return "unset"
	}
	if f.choice < len(f.labels) && f.labels[f.choice] != "" {
		return termtext.Line(f.labels[f.choice])
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return termtext.Line(s)
	}
	return termtext.Line(string(c))
}

// typeText says what the field takes: "integer", "enum of 3".
func (f *formField) typeText() string {
	if f.kind == fieldEnum {
		return fmt.Sprintf("one of %d", len(f.choices)-boolToInt(f.choices[0] == nil))
	}
	if f.kind == fieldMulti {
		return fmt.Sprintf("any of %d", len(f.choices))
	}
	return fieldKindNames[f.kind]
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

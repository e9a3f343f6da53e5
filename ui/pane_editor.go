package ui

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/toolschema"
)

// editorAction is what a key in the editor asks the model to do.
type editorAction int

const (
	editorNone editorAction = iota
	editorSend
	editorClose
)

// argEditor edits a tool's arguments: a form for simple schemas, a JSON
// editor for anything (ctrl+t switches). Arguments are validated against
// the inputSchema before they are sent.
type argEditor struct {
	c *common

	tool      mcp.Tool
	schema    *toolschema.Schema
	schemaErr string
	fields    []*formField
	formOK    bool
	jsonMode  bool
	json      textarea.Model
	focus     int
	errs      []string // errors that are about no one field

	// forceArmed: ctrl+f was pressed on arguments that break the schema
	// and the warning is showing; ctrl+f again sends them.
	forceArmed bool

	// memory holds the last arguments sent to each tool, by name, for the
	// whole run: a form opens on what was sent last.
	memory map[string]json.RawMessage
	// heading replaces "CALL tool" as the title: the form of an
	// elicitation is no tool call.
	heading string

	// target is what sending does: call the tool, get a prompt or read a
	// template; suggest is the completion shown under the focused field
	// (editor_target.go).
	target  editorTarget
	suggest suggestions

	offset        int
	width, height int

	// taskChoice is how the tool may be called (mcp.TaskChoiceFor);
	// asTask whether it goes as a task, which AsTask flips where the
	// user may choose.
	taskChoice mcp.TaskChoice
	asTask     bool
	taskNote   string // why AsTask did nothing, until the next key
}

func newArgEditor(c *common) *argEditor {
	return &argEditor{c: c, json: newJSONArea(), memory: map[string]json.RawMessage{}}
}

// Remember keeps args as the last arguments sent to the tool.
func (e *argEditor) Remember(tool string, args json.RawMessage) {
	e.memory[tool] = append(json.RawMessage(nil), args...)
}

// newJSONArea is the JSON editor, without line numbers or blinking.
func newJSONArea() textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 1 << 20
	ta.MaxHeight = 0
	s := ta.Styles()
	s.Cursor.Blink = false
	ta.SetStyles(s)
	return ta
}

// SetSize sets the editor's size.
func (e *argEditor) SetSize(w, h int) {
	e.width, e.height = w, h
	e.json.SetWidth(max(w-2, 10))
	e.json.SetHeight(max(h-6, 3))
}

// Open starts editing arguments for tool.
func (e *argEditor) Open(tool mcp.Tool) tea.Cmd { return e.OpenFor(tool, editorTarget{}) }

// OpenFor starts editing arguments for what target sends: tool is the
// tool, or a prompt's or template's arguments as one (ArgumentsTool).
func (e *argEditor) OpenFor(tool mcp.Tool, target editorTarget) tea.Cmd {
	*e = argEditor{c: e.c, tool: tool, schema: tool.Schema, width: e.width, height: e.height, memory: e.memory, target: target}
	if tool.SchemaErr != nil {
		e.schemaErr = "inputSchema does not compile, arguments are sent unchecked: " + termtext.Line(tool.SchemaErr.Error())
	}
	e.json = newJSONArea()
	e.SetSize(e.width, e.height)
	e.fields, e.formOK = buildForm(tool)
	last, remembered := e.memory[e.memoryKey()]
	if remembered && e.formOK {
		obj, _ := parseArgs(string(last))
		if !e.fillForm(obj) {
			e.fields, _ = buildForm(tool) // half filled: start over, in JSON
			e.formOK = false
		}
	}
	if !e.formOK {
		e.jsonMode = true
		if remembered {
			e.json.SetValue(prettyArgs(last))
		} else {
			e.json.SetValue(e.template())
		}
		return e.json.Focus()
	}
	if len(e.fields) > 0 {
		return e.fields[0].Focus()
	}
	return nil
}

// fillForm puts obj's values in the form's fields; it reports false,
// with a reason in errs, when obj does not fit the form.
func (e *argEditor) fillForm(obj map[string]json.RawMessage) bool {
	byName := map[string]*formField{}
	for _, f := range e.fields {
		byName[f.name] = f
	}
	for name := range obj {
		if byName[name] == nil {
			e.errs = []string{"the form has no field " + termtext.Line(name) + "; edit the JSON"}
			return false
		}
	}
	for _, f := range e.fields {
		if !f.setValue(obj[f.name]) {
			e.errs = []string{"the value of " + termtext.Line(f.name) + " does not fit the form; edit the JSON"}
			return false
		}
	}
	return true
}

// template is the starting JSON for a schema the form cannot show.
func (e *argEditor) template() string {
	props := e.tool.Input.Properties
	if len(props) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteString("{\n")
	for i, p := range props {
		q, _ := json.Marshal(p.Name)
		b.WriteString("  " + string(q) + ": " + propertyTemplate(p, "  "))
		if i < len(props)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}")
	return escapeJSONText(b.String())
}

// Update handles the editor's keys. On editorSend, args
// holds the validated arguments.
func (e *argEditor) Update(msg tea.Msg) (editorAction, json.RawMessage, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	keys := e.c.Keys.Editor
	if isKey {
		switch {
		case key.Matches(k, keys.Close):
			return editorClose, nil, nil
		case key.Matches(k, keys.ToggleJSON):
			return editorNone, nil, e.toggleMode()
		case key.Matches(k, keys.AsTask):
			e.toggleTask()
			return editorNone, nil, nil
		case key.Matches(k, keys.SendJSON) || (!e.jsonMode && key.Matches(k, keys.Send)):
			if args, ok := e.collect(); ok {
				return editorSend, args, nil
			}
			return editorNone, nil, nil
		case key.Matches(k, keys.SendUnchecked):
			return e.sendUnchecked()
		}
		e.forceArmed = false
	}
	if e.jsonMode {
		var cmd tea.Cmd
		e.json, cmd = e.json.Update(msg)
		e.recheck()
		return editorNone, nil, cmd
	}
	if !isKey || len(e.fields) == 0 {
		return editorNone, nil, nil
	}
	f := e.fields[e.focus]
	switch {
	case key.Matches(k, keys.Next):
		return editorNone, nil, e.moveFocus(1)
	case key.Matches(k, keys.Prev):
		return editorNone, nil, e.moveFocus(-1)
	case f.kind == fieldMulti && key.Matches(k, keys.Choose):
		switch k.String() {
		case "left":
			f.moveMulti(-1)
		case "right":
			f.moveMulti(1)
		default:
			f.toggleMulti()
		}
		e.recheck()
		return editorNone, nil, nil
	case f.isChoice() && key.Matches(k, keys.Choose):
		if k.String() == "left" {
			f.Step(-1)
		} else {
			f.Step(1)
		}
		return editorNone, nil, nil
	}
	if f.isChoice() {
		return editorNone, nil, nil
	}
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	e.recheck()
	return editorNone, nil, cmd
}

// showsErrors reports whether any error is on screen.
func (e *argEditor) showsErrors() bool {
	if len(e.errs) > 0 {
		return true
	}
	for _, f := range e.fields {
		if f.err != "" {
			return true
		}
	}
	return false
}

// recheck checks the arguments again after an edit while errors show, so
// an error goes as soon as it is fixed (and a new one shows).
func (e *argEditor) recheck() {
	if e.showsErrors() {
		e.collect()
	}
}

// sendUnchecked sends arguments that break the schema, on purpose: a QA
// tool must be able to send bad input. The first ctrl+f warns in one
// line; the second sends. Arguments that validate go at once.
func (e *argEditor) sendUnchecked() (editorAction, json.RawMessage, tea.Cmd) {
	if args, ok := e.collect(); ok {
		return editorSend, args, nil
	}
	args, ok := e.uncheckedArgs()
	if !ok {
		// Not JSON at all: there is nothing to send, and errs says why.
		return editorNone, nil, nil
	}
	if e.forceArmed {
		e.forceArmed = false
		return editorSend, args, nil
	}
	e.forceArmed = true
	return editorNone, nil, nil
}

// uncheckedArgs are the arguments as written, whatever the schema says:
// the JSON editor's object, or the form's fields that parse.
func (e *argEditor) uncheckedArgs() (json.RawMessage, bool) {
	if !e.jsonMode {
		args, _ := e.formArgs()
		return args, true
	}
	text := e.json.Value()
	if _, err := parseArgs(text); err != "" {
		return nil, false
	}
	if strings.TrimSpace(text) == "" {
		return json.RawMessage("{}"), true
	}
	return compact(json.RawMessage(text)), true
}

func (e *argEditor) moveFocus(n int) tea.Cmd {
	e.fields[e.focus].Blur()
	e.focus = (e.focus + n + len(e.fields)) % len(e.fields)
	return e.fields[e.focus].Focus()
}

// toggleMode switches between the form and the JSON editor, carrying the
// arguments across.
func (e *argEditor) toggleMode() tea.Cmd {
	if !e.jsonMode {
		args, _ := e.formArgs()
		e.jsonMode = true
		e.json.SetValue(prettyArgs(args))
		e.errs = nil
		return e.json.Focus()
	}
	if !e.formOK {
		e.errs = []string{"this schema is too complex for a form; edit the JSON"}
		return nil
	}
	obj, err := parseArgs(e.json.Value())
	if err != "" {
		e.errs = []string{err}
		return nil
	}
	if !e.fillForm(obj) {
		return nil
	}
	e.jsonMode = false
	e.errs = nil
	e.json.Blur()
	if len(e.fields) > 0 {
		return e.fields[e.focus].Focus()
	}
	return nil
}

func prettyArgs(args json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, args, "", "  ") != nil {
		return escapeJSONText(string(args))
	}
	return escapeJSONText(b.String())
}

// escapeJSONText makes JSON for the editor safe to show: the server's
// property names and enum values may hold bidi or tag characters, which
// become \u escapes that mean the same to a JSON parser.
func escapeJSONText(js string) string {
	safe, _ := termtext.EscapeJSON([]byte(js))
	return string(safe)
}

// parseArgs reads the JSON editor's text as an arguments object.
func parseArgs(text string) (map[string]json.RawMessage, string) {
	if strings.TrimSpace(text) == "" {
		return map[string]json.RawMessage{}, ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		var se *json.SyntaxError
		if ok := asSyntaxError(err, &se); ok {
			line, col := position(text, se.Offset)
			return nil, "invalid JSON at line " + itoa(line) + ", column " + itoa(col) + ": " + se.Error()
		}
		return nil, "arguments must be a JSON object: " + err.Error()
	}
	if obj == nil {
		return nil, "arguments must be a JSON object, not null"
	}
	return obj, ""
}

// formArgs builds the arguments object from the form, in field order.
func (e *argEditor) formArgs() (json.RawMessage, bool) {
	ok := true
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, f := range e.fields {
		v, present := f.value()
		if f.err != "" {
			ok = false
		}
		if !present {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		q, _ := json.Marshal(f.name)
		b.Write(q)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), ok
}

// collect returns the arguments if they parse and validate; otherwise it
// puts the errors next to the fields they are about.
func (e *argEditor) collect() (json.RawMessage, bool) {
	e.errs = nil
	var args json.RawMessage
	if e.jsonMode {
		obj, err := parseArgs(e.json.Value())
		if err != "" {
			e.errs = []string{err}
			return nil, false
		}
		args, _ = json.Marshal(obj)
		if strings.TrimSpace(e.json.Value()) != "" {
			args = compact(json.RawMessage(e.json.Value())) // keep the user's key order
		}
	}
	formOK := true
	if !e.jsonMode {
		// Validate what parsed even when a field did not, to show every
		// problem at once.
		args, formOK = e.formArgs()
	}
	problems := validateArgs(e.schema, args)
	if len(problems) == 0 && formOK {
		return args, true
	}
	byName := map[string]*formField{}
	for _, f := range e.fields {
		byName[f.name] = f
	}
	for _, p := range problems {
		if f := byName[p.Field]; f != nil && !e.jsonMode {
			if f.err == "" {
				f.err = p.Message
			}
			continue
		}
		msg := p.Message
		if p.Field != "" {
			msg = termtext.Line(p.Field) + ": " + msg
		}
		e.errs = append(e.errs, msg)
	}
	return nil, false
}

// View renders the editor.
func (e *argEditor) View() string {
	st := e.c.Styles
	w := e.width
	title := e.target.verb() + " " + termtext.Line(e.tool.Name)
	if e.tool.Title != "" {
		title += " · " + termtext.Line(e.tool.Title)
	}
	if e.heading != "" {
		title = e.heading
	}
	mode := "form"
	if e.jsonMode {
		mode = "JSON"
	}
	if e.asTask {
		mode += " · as a task"
	}
	// The editor has the keys while it is open: marked as focused.
	head := []string{st.Title.Render(clip(focusMark+title, w-8)) + " " + st.Muted.Render("("+mode+")")}
	var desc []string
	if d := termtext.Line(e.tool.Description); d != "" {
		desc = wrapLines(st.Muted.Render(d), w)
	}
	descAt := len(head)
	head = append(head, hiddenLines(st, e.tool.Hidden, w)...)
	if line := e.taskLine(); line != "" {
		head = append(head, wrapLines(st.Muted.Render(line), w)...)
	}
	if e.schemaErr != "" {
		head = append(head, wrapLines(st.BadgeWarn.Render(e.schemaErr), w)...)
	}
	var body []string
	focusTop, focusBottom := 0, 0
	if e.jsonMode {
		body = strings.Split(e.json.View(), "\n")
	} else {
		if len(e.fields) == 0 {
			body = append(body, st.Muted.Render(e.target.noArguments()))
		}
		for i, f := range e.fields {
			if i == e.focus {
				focusTop = len(body)
			}
			body = append(body, e.fieldView(f, i == e.focus)...)
			if i == e.focus {
				body = append(body, e.suggestLines()...)
			}
			if i == e.focus {
				focusBottom = len(body)
			}
		}
	}
	var foot []string
	for _, msg := range e.errs {
		foot = append(foot, wrapLines(st.FieldError.Render("✗ "+msg), w)...)
	}
	if e.forceArmed {
		k := e.c.Keys.Editor.SendUnchecked.Help().Key
		foot = append(foot, st.BadgeWarn.Render(clip("⚠ these break the schema: "+k+" again sends them as they are", w)))
	}
	// The description takes what room the fields leave, two lines at least.
	if n := max(e.height-len(head)-len(body)-len(foot), 2); len(desc) > n {
		desc = append(desc[:n-1], st.Muted.Render(clip(stripStyles(desc[n-1])+"…", w)))
	}
	head = slices.Insert(head, descAt, desc...)
	room := max(e.height-len(head)-len(foot), 1)
	// Keep the focused field on screen.
	if focusBottom-e.offset > room {
		e.offset = focusBottom - room
	}
	if focusTop < e.offset {
		e.offset = focusTop
	}
	e.offset = max(min(e.offset, len(body)-room), 0)
	end := min(e.offset+room, len(body))
	lines := append(head, body[e.offset:end]...)
	lines = append(lines, foot...)
	return padLines(lines, w, e.height)
}

// fieldView renders one field: label, input, description, error.
func (e *argEditor) fieldView(f *formField, focused bool) []string {
	st := e.c.Styles
	marker := "  "
	label := st.FieldLabel.Render(termtext.Line(f.name))
	if focused {
		marker = st.FieldFocused.Render("› ")
	}
	if f.required {
		label += st.FieldRequired.Render("*")
	}
	label += " " + st.Muted.Render(f.typeText())
	var input string
	if f.kind == fieldMulti {
		input = f.multiText(focused, func(s string) string { return st.FieldFocused.Render(s) })
	} else if f.isChoice() {
		input = "‹ " + f.choiceText() + " ›"
		if focused {
			input = st.FieldFocused.Render(input)
		}
	} else {
		f.input.SetWidth(max(min(e.width-6, 40), 8))
		input = "[" + f.input.View() + "]"
	}
	lines := []string{marker + label, "  " + input}
	if f.description != "" && focused {
		// The field being filled in says all it has to say.
		for _, l := range wrapLines(termtext.Line(f.description), e.width-2) {
			lines = append(lines, "  "+st.Muted.Render(l))
		}
	} else if f.description != "" {
		lines = append(lines, "  "+st.Muted.Render(clip(termtext.Line(f.description), e.width-2)))
	}
	if f.err != "" {
		lines = append(lines, "  "+st.FieldError.Render("✗ "+f.err))
	}
	return lines
}

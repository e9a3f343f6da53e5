package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// HiddenText is what a tool hides from the person reading it: characters
// a terminal does not show (termtext escapes them) but a model reads,
// such as tag characters spelling an instruction after "Adds two
// numbers.". The counts are exact; Runs keeps the first maxHiddenRuns.
type HiddenText struct {
	// Chars is how many hidden characters the entry holds in all.
	Chars int
	// Fields is how many strings, values or keys, hold any.
	Fields int
	// RunCount is how many runs of hidden characters there are in all.
	RunCount int
	// Runs are the first runs, in document order.
	Runs []HiddenRun
}

// HiddenRun is one run of hidden characters in one string of a tool.
type HiddenRun struct {
	// Field names the string for people, safe to print:
	// "description", "inputSchema.properties.path.description".
	Field string
	// Pointer is the same place as a JSON Pointer into the entry.
	Pointer string
	// Key: the run is in the key at Pointer (a property name), not in
	// the value.
	Key bool
	termtext.Finding
}

// maxHiddenRuns bounds the runs a tool keeps: a server can hide one
// character between every two visible ones of a 32 MiB description.
const maxHiddenRuns = 100

// Found reports whether the tool hides anything.
func (h HiddenText) Found() bool { return h.Chars > 0 }

// Summary says how much is hidden where: "18 characters in 1 field".
func (h HiddenText) Summary() string {
	return english.Plural(h.Chars, "character") + " in " + english.Plural(h.Fields, "field")
}

// String describes the run on one line, safe to print:
// `description, bytes 17-89: 18 hidden characters (tag) spelling "read ~/.ssh/id_rsa"`.
func (r HiddenRun) String() string {
	where := r.Field
	if r.Key {
		where += " (key)"
	}
	return where + ", " + r.Finding.String()
}

// FindHidden looks for hidden text in every key and string of a
// tools/list entry, nested schemas included: name, title, description,
// property names, titles, descriptions, enum values and defaults,
// annotations, outputSchema and _meta alike, since a model may be shown
// any of them. It stops quietly at malformed JSON.
func FindHidden(entry json.RawMessage) HiddenText {
	var h HiddenText
	if !mayHide(entry) {
		return h
	}
	dec := json.NewDecoder(bytes.NewReader(entry))
	dec.UseNumber()
	var stack []walkLevel
	for {
		tok, err := dec.Token()
		if err != nil {
			return h
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			if t == '}' || t == ']' {
				stack = valueDone(stack[:top])
				continue
			}
		case string:
			if top >= 0 && stack[top].wantKey {
				stack[top].key, stack[top].wantKey = t, false
				h.add(t, stack, true)
				continue
			}
		}
		if top >= 0 && !stack[top].object {
			stack[top].index++
		}
		switch t := tok.(type) {
		case json.Delim: // an opening one
			stack = append(stack, walkLevel{object: t == '{', wantKey: t == '{', index: -1})
			continue
		case string:
			h.add(t, stack, false)
		}
		stack = valueDone(stack)
	}
}

// valueDone notes that a value ended: in an object, a key comes next.
func valueDone(stack []walkLevel) []walkLevel {
	if top := len(stack) - 1; top >= 0 && stack[top].object {
		stack[top].wantKey = true
	}
	return stack
}

// mayHide reports whether JSON text can hold a hidden character: only
// DEL, a byte beyond ASCII or an escape (\u202e, \b) can spell one, since
// JSON strings hold no raw controls; most tools have none of them.
func mayHide(js []byte) bool {
	for _, c := range js {
		if c >= 0x7f || c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return true
		}
	}
	return bytes.IndexByte(js, '\\') >= 0
}

// walkLevel is one open object or array in FindHidden's walk.
type walkLevel struct {
	object  bool
	wantKey bool   // an object's next token is a key
	key     string // an object's current member
	index   int    // an array's current element
}

// add counts the hidden text in s, found at stack.
func (h *HiddenText) add(s string, stack []walkLevel, key bool) {
	found := false
	for f := range termtext.HiddenRuns(s) {
		h.Chars += f.Count
		h.RunCount++
		found = true
		if len(h.Runs) < maxHiddenRuns {
			field, pointer := place(stack)
			h.Runs = append(h.Runs, HiddenRun{Field: field, Pointer: pointer, Key: key, Finding: f})
		}
	}
	if found {
		h.Fields++
	}
}

// place names where stack points, for people and as a JSON Pointer.
func place(stack []walkLevel) (field, pointer string) {
	var f, p strings.Builder
	for _, l := range stack {
		if !l.object {
			fmt.Fprintf(&f, "[%d]", l.index)
			fmt.Fprintf(&p, "/%d", l.index)
			continue
		}
		p.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(l.key))
		if plainName(l.key) {
			if f.Len() > 0 {
				f.WriteByte('.')
			}
			f.WriteString(l.key)
		} else {
			f.WriteString(`["` + termtext.ClipRunes(termtext.Line(l.key), maxKeyShown) + `"]`)
		}
	}
	return f.String(), p.String()
}

// maxKeyShown bounds a key shown in a field's name: a key of hidden
// characters escapes to ten times its length.
const maxKeyShown = 40

// plainName reports whether a key reads well after a dot.
func plainName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '$') {
			return false
		}
	}
	return true
}

package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// jsonWarning flags a field of --json output whose text is not what the
// server sent.
type jsonWarning struct {
	// Path is the field's JSON Pointer in the output: "/stderr/3".
	Path    string `json:"path"`
	Warning string `json:"warning"`
}

// invalidUTF8 is the warning for text that was not valid UTF-8.
const invalidUTF8 = "invalid UTF-8, each bad byte replaced with U+FFFD"

// maxJSONWarnings bounds the warnings listed; the last says how many
// more there were.
const maxJSONWarnings = 100

// writeJSON writes v as one line of JSON that is safe to print to a
// terminal: valid UTF-8, with C1 controls, bidi controls and invisible
// format characters written as \u escapes (termtext.EscapeJSON), so that
// piping --json to a terminal never acts on an escape. Invalid UTF-8
// becomes U+FFFD and changes the text, so each field it happened to is
// named in a top-level "warnings" array, after the given warnings (for
// Go strings, which encoding/json replaces without telling: see
// flagInvalidText). v must marshal to an object.
func writeJSON(w io.Writer, v any, warnings []jsonWarning) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	safe, replaced := termtext.EscapeJSON(js)
	if replaced {
		for _, p := range termtext.InvalidUTF8Pointers(js) {
			warnings = append(warnings, jsonWarning{Path: p, Warning: invalidUTF8})
		}
	}
	if len(warnings) > 0 {
		if n := len(warnings); n > maxJSONWarnings {
			warnings = append(warnings[:maxJSONWarnings-1:maxJSONWarnings-1],
				jsonWarning{Warning: strconv.Itoa(n-maxJSONWarnings+1) + " more warnings not listed"})
		}
		safe = withWarnings(safe, warnings)
	}
	// Two writes, not append(safe, '\n'): for a 30 MB result that append
	// would copy the whole report once more.
	if _, err := w.Write(safe); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// withWarnings adds "warnings" as the last member of the object js.
func withWarnings(js []byte, warnings []jsonWarning) []byte {
	list, _ := json.Marshal(warnings)
	list, _ = termtext.EscapeJSON(list) // pointers hold the server's keys
	body := bytes.TrimSuffix(js, []byte("}"))
	out := append([]byte(nil), body...)
	if !bytes.Equal(bytes.TrimSpace(body), []byte("{")) {
		out = append(out, ',')
	}
	out = append(out, `"warnings":`...)
	out = append(out, list...)
	return append(out, '}')
}

// flagInvalidText adds a warning for s at path when s is not valid
// UTF-8: encoding/json replaces its bad bytes without saying so.
func flagInvalidText(warnings []jsonWarning, path, s string) []jsonWarning {
	if utf8.ValidString(s) {
		return warnings
	}
	return append(warnings, jsonWarning{Path: path, Warning: invalidUTF8})
}

package session

import (
	"bytes"
	"encoding/json"
	"testing"
)

// ParseID takes exactly the texts that encoding/json reads as one string
// or one number, and keeps them as written: it checks them with
// jsonscan.Valid instead of decoding them.
func FuzzParseIDAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`1`, ` 42 `, `-0`, `1e400`, `01`, `1.`, `"a"`, `"a\"b"`, `"\u00e9"`, `"\x"`,
		`"a" "b"`, `"unterminated`, `null`, `true`, `{}`, `[1]`, `-`, `"` + "\xff" + `"`, `""`, "\u00a01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := ParseID(b)
		trimmed := bytes.TrimSpace(b)
		var want bool
		if json.Valid(trimmed) {
			d := json.NewDecoder(bytes.NewReader(trimmed))
			d.UseNumber()
			var v any
			if d.Decode(&v) == nil {
				switch v.(type) {
				case string, json.Number:
					want = true
				}
			}
		}
		if (err == nil) != want {
			t.Fatalf("ParseID(%q) error %v; encoding/json reads it as a string or number: %v", b, err, want)
		}
		if err == nil && id.String() != string(trimmed) {
			t.Fatalf("ParseID(%q) = %s; want the text as written, %s", b, id, trimmed)
		}
	})
}

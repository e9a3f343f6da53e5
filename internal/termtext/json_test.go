package termtext

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestEncodingJSONEscapes pins what encoding/json escapes by itself, and
// what it leaves raw, which is why EscapeJSON exists.
func TestEncodingJSONEscapes(t *testing.T) {
	for r := rune(0); r < 0x20; r++ {
		js, _ := json.Marshal(string(r))
		if bytes.ContainsRune(js, r) {
			t.Errorf("encoding/json left C0 %U raw: %q", r, js)
		}
	}
	for _, r := range []rune{0x2028, 0x2029} {
		js, _ := json.Marshal(string(r))
		if bytes.ContainsRune(js, r) {
			t.Errorf("encoding/json left %U raw: %q", r, js)
		}
	}
	for _, r := range []rune{0x7f, 0x9b, 0x202e, 0x200b, 0xe0041} {
		if js, _ := json.Marshal(string(r)); !bytes.ContainsRune(js, r) {
			t.Errorf("encoding/json now escapes %U (%q); EscapeJSON's doc can say so", r, js)
		}
	}
	js, err := json.Marshal(struct{ R json.RawMessage }{json.RawMessage("\"\xff\u009b\"")})
	if err != nil || !bytes.Contains(js, []byte("\xff\u009b")) {
		t.Errorf("encoding/json now checks RawMessage (%q, %v); EscapeJSON's doc can say so", js, err)
	}
}

func TestEscapeJSON(t *testing.T) {
	cases := []struct {
		in, want string
		replaced bool
	}{
		{`{"a":"plain"}`, `{"a":"plain"}`, false},
		{"{\n  \"a\": \"h\u00e9llo \u2764\ufe0f\"\n}", "{\n  \"a\": \"h\u00e9llo \u2764\ufe0f\"\n}", false},
		{"\"csi\u009b31m del\x7f\"", `"csi\u009b31m del\u007f"`, false},
		{"\"abc\u202edef\u2066\"", `"abc\u202edef\u2066"`, false},
		{"\"Adds\U000E0072\"", `"Adds\udb40\udc72"`, false},
		{"\"zw\u200b\u00ad\ufeff\"", `"zw\u200b\u00ad\ufeff"`, false},
		{"\"bad\xff\xc3\"", "\"bad\ufffd\ufffd\"", true},
		{`"already \u202e escaped \\"`, `"already \u202e escaped \\"`, false},
		{"\"\\\\\u202e\"", `"\\\u202e"`, false},
		// A keycap's selector is kept after a digit, not after its
		// neighbours; a selector with nothing before it is escaped.
		{"\"0\ufe0f 9\ufe0f\"", "\"0\ufe0f 9\ufe0f\"", false},
		{"\"/\ufe0f:\ufe0f\"", `"/\ufe0f:\ufe0f"`, false},
		{"\ufe0f", `\ufe0f`, false},
	}
	for _, c := range cases {
		got, replaced := EscapeJSON([]byte(c.in))
		if string(got) != c.want || replaced != c.replaced {
			t.Errorf("EscapeJSON(%q) = %q, %v; want %q, %v", c.in, got, replaced, c.want, c.replaced)
		}
	}
}

// TestEscapeJSONEveryCodePoint marshals every code point, rewrites it,
// and checks the result with a strict parser and a scan for raw bytes.
func TestEscapeJSONEveryCodePoint(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		js, err := json.Marshal("x" + string(r))
		if err != nil {
			t.Fatal(err)
		}
		checkEscapedJSON(t, js)
	}
}

// checkEscapedJSON runs EscapeJSON on js and checks that the result is
// valid UTF-8 without a raw character a terminal acts on or hides, and,
// when js is valid JSON, valid JSON with the same meaning.
func checkEscapedJSON(t *testing.T, js []byte) {
	t.Helper()
	out, replaced := EscapeJSON(js)
	if replaced != !utf8.Valid(js) {
		t.Fatalf("EscapeJSON(%q) replaced = %v, but the input's UTF-8 valid = %v", js, replaced, utf8.Valid(js))
	}
	if !utf8.Valid(out) {
		t.Fatalf("EscapeJSON(%q) = %q is not valid UTF-8", js, out)
	}
	prev := noBase
	for _, r := range string(out) {
		if r != '\t' && r != '\n' && r != '\r' && unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp,
			unicode.Noncharacter_Code_Point, unicode.Other_Default_Ignorable_Code_Point) ||
			unicode.Is(unicode.Variation_Selector, r) && !selectorFits(prev, r) {
			t.Fatalf("EscapeJSON(%q) = %q keeps %U raw", js, out, r)
		}
		prev = nextBase(r, false)
	}
	if again, _ := EscapeJSON(out); !bytes.Equal(again, out) {
		t.Fatalf("EscapeJSON is not a fixed point on its output: %q then %q", out, again)
	}
	if !json.Valid(js) {
		return
	}
	if !json.Valid(out) {
		t.Fatalf("EscapeJSON(%q) = %q is not valid JSON", js, out)
	}
	var before, after any
	if err := json.Unmarshal(js, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &after); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("EscapeJSON(%q) = %q means %#v, want %#v", js, out, after, before)
	}
}

func TestEscapeJSONReturnsCleanInputUnchanged(t *testing.T) {
	in := []byte(`{"name":"h` + strings.Repeat("é", 10) + `"}`)
	if out, _ := EscapeJSON(in); &out[0] != &in[0] {
		t.Errorf("EscapeJSON copied clean input")
	}
}

func FuzzEscapeJSON(f *testing.F) {
	for _, s := range []string{"", `{"a":1}`, "\"\u009b\"", "\"\xff\"", "[\"\U000E0041\u202e\"]",
		"\"\\\\\u2066\"", "{\"\u200b\":null}", "\"😀\ufe0f\ufe01\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Bytes as a server might send them in a json.RawMessage.
		checkEscapedJSON(t, b)
		// The same text as encoding/json writes it from a Go string.
		s := string(b)
		js, err := json.MarshalIndent(map[string]any{s: []string{s}}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		checkEscapedJSON(t, js)
	})
}

package termtext

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestInvalidUTF8Pointers(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`{"a":"ok","b":[1,"fine"]}`, nil},
		{"\"x\xff\"", []string{""}},
		{"{\"a\":\"x\xff\"}", []string{"/a"}},
		{"{\"a\":[1,{\"b\":\"\xc3\"},\"\xfe\"]}", []string{"/a/1/b", "/a/2"}},
		{"{\"k\xff\":1,\"ok\":\"v\xff\"}", []string{"/k\ufffd", "/ok"}},
		{"{\"a/b~c\":\"\xff\"}", []string{"/a~1b~0c"}},
		{"{\"esc\\\"aped\":\"\\\"\xff\\\\\"}", []string{"/esc\"aped"}},
		{"{\n  \"pretty\": [\n    \"\xff\"\n  ]\n}", []string{"/pretty/0"}},
		{"[true,null,-1.5e3,\"\xff\",{}]", []string{"/3"}},
		// Malformed input: whatever is found, and no panic.
		{"{\"a\":\"\xff", []string{"/a"}},
		{"]]\xff", nil},
		{"1,\"\xff\"", []string{""}},     // a comma outside any object or array
		{"[\"\xff\",12", []string{"/0"}}, // a number that ends the input
	}
	for _, c := range cases {
		if got := pointersWithin(t, []byte(c.in)); !slices.Equal(got, c.want) {
			t.Errorf("InvalidUTF8Pointers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// pointersWithin is InvalidUTF8Pointers with a deadline: a walk that
// stops advancing fails the test that found it instead of hanging it.
func pointersWithin(t *testing.T, js []byte) []string {
	t.Helper()
	done := make(chan []string, 1)
	go func() { done <- InvalidUTF8Pointers(js) }()
	select {
	case got := <-done:
		return got
	case <-time.After(5 * time.Second):
		t.Fatalf("InvalidUTF8Pointers(%q) did not return within 5s", js)
		return nil
	}
}

// TestInvalidUTF8PointersInEncodingJSON finds a server's invalid bytes
// where encoding/json leaves them: inside a json.RawMessage.
func TestInvalidUTF8PointersInEncodingJSON(t *testing.T) {
	report := struct {
		Tool   string          `json:"tool"`
		Result json.RawMessage `json:"result"`
	}{"echo", json.RawMessage("{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\"}]}")}
	for _, indent := range []bool{false, true} {
		var js []byte
		var err error
		if indent {
			js, err = json.MarshalIndent(report, "", "  ")
		} else {
			js, err = json.Marshal(report)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := pointersWithin(t, js); !slices.Equal(got, []string{"/result/content/0/text"}) {
			t.Errorf("InvalidUTF8Pointers(%s) = %q", js, got)
		}
	}
}

func FuzzInvalidUTF8Pointers(f *testing.F) {
	for _, s := range []string{"", `{"a":1}`, "\"\xff\"", "{\"k\xff\":[\"\xfe\"]}", "[[[\"\xc3\"]]]", "{\"a\":\"\\\"\xff\"}", "}{]["} {
		f.Add([]byte(s), "k", "v")
	}
	f.Fuzz(func(t *testing.T, js []byte, key, value string) {
		got := pointersWithin(t, js)
		if utf8.Valid(js) && got != nil {
			t.Fatalf("InvalidUTF8Pointers(%q) = %q for valid UTF-8", js, got)
		}
		if json.Valid(js) && !utf8.Valid(js) {
			// In valid JSON an invalid byte can only be inside a string.
			if len(got) == 0 {
				t.Fatalf("InvalidUTF8Pointers(%q) found nothing", js)
			}
			var doc any
			if err := json.Unmarshal(js, &doc); err != nil {
				t.Fatal(err)
			}
			for _, p := range got {
				if !resolves(doc, p) {
					t.Fatalf("InvalidUTF8Pointers(%q): %q does not resolve", js, p)
				}
			}
		}
		// A document whose shape is known: exactly the bad key and value.
		if strings.ContainsAny(key+value, "\"\\") || hasControl(key+value) {
			return
		}
		doc := []byte(`{"` + key + `":["` + value + `"]}`)
		var decoded string
		if err := json.Unmarshal([]byte(`"`+key+`"`), &decoded); err != nil {
			t.Fatal(err)
		}
		token := strings.NewReplacer("~", "~0", "/", "~1").Replace(decoded)
		var want []string
		if !utf8.ValidString(key) {
			want = append(want, "/"+token)
		}
		if !utf8.ValidString(value) {
			want = append(want, "/"+token+"/0")
		}
		if got := pointersWithin(t, doc); !slices.Equal(got, want) {
			t.Fatalf("InvalidUTF8Pointers(%q) = %q, want %q", doc, got, want)
		}
	})
}

// hasControl reports whether s holds a byte JSON strings may not hold raw.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 })
}

// resolves reports whether the JSON Pointer p names a value in doc.
func resolves(doc any, p string) bool {
	if p == "" {
		return true
	}
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v := doc.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return false
			}
			doc = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return false
			}
			doc = v[i]
		default:
			return false
		}
	}
	return true
}

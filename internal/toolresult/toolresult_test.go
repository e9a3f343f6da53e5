package toolresult

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func describe(t *testing.T, raw string) Result {
	t.Helper()
	r, ok := Describe(json.RawMessage(raw))
	if !ok {
		t.Fatalf("Describe(%s): not a tool result", raw)
	}
	return r
}

func TestBlocks(t *testing.T) {
	blob := strings.Repeat("A", 2048)
	cases := []struct {
		name, block string
		want        Block
	}{
		{"text", `{"type":"text","text":"hello\nthere"}`,
			Block{Tag: "text", Lines: []string{"hello", "there"}}},
		{"empty text", `{"type":"text","text":""}`,
			Block{Tag: "text", Lines: []string{""}}},
		{"image", `{"type":"image","mimeType":"image/png","data":"iVBORw0K"}`,
			Block{Tag: "image", Head: "image/png, 8 bytes of base64"}},
		{"audio", `{"type":"audio","mimeType":"audio/wav","data":"` + blob + `"}`,
			Block{Tag: "audio", Head: "audio/wav, 2.0 KB of base64"}},
		{"resource link", `{"type":"resource_link","name":"notes","uri":"file:///notes.md"}`,
			Block{Tag: "link", Head: "notes file:///notes.md"}},
		{"text resource", `{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"one\ntwo"}}`,
			Block{Tag: "resource", Head: "file:///a.txt (text/plain)", Lines: []string{"one", "two"}}},
		{"text resource without a MIME type", `{"type":"resource","resource":{"uri":"file:///a.txt","text":"one"}}`,
			Block{Tag: "resource", Head: "file:///a.txt", Lines: []string{"one"}}},
		{"blob resource", `{"type":"resource","resource":{"uri":"file:///a.bin","mimeType":"application/octet-stream","blob":"AAAA"}}`,
			Block{Tag: "resource", Head: "file:///a.bin (application/octet-stream), 4 bytes of base64"}},
		{"resource without a resource", `{"type":"resource"}`,
			Block{Tag: "resource", Lines: []string{"{", `  "type": "resource"`, "}"}}},
		{"unknown type", `{"type":"hologram","depth":3}`,
			Block{Tag: "hologram", Lines: []string{"{", `  "type": "hologram",`, `  "depth": 3`, "}"}}},
		{"not an object", `42`,
			Block{Lines: []string{"42"}}},
		{"a field of the wrong type", `{"type":"text","text":5}`,
			Block{Lines: []string{"{", `  "type": "text",`, `  "text": 5`, "}"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := describe(t, `{"content":[`+c.block+`]}`)
			if len(r.Blocks) != 1 {
				t.Fatalf("got %d blocks, want 1", len(r.Blocks))
			}
			if got := r.Blocks[0]; !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestResult(t *testing.T) {
	r := describe(t, `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"structuredContent":{"n":1,"s":"x"},"isError":true}`)
	if !r.IsError {
		t.Error("IsError = false, want true")
	}
	if len(r.Blocks) != 2 || r.Blocks[0].Lines[0] != "a" || r.Blocks[1].Lines[0] != "b" {
		t.Errorf("blocks out of order or missing: %#v", r.Blocks)
	}
	want := []string{"{", `  "n": 1,`, `  "s": "x"`, "}"}
	if !reflect.DeepEqual(r.Structured, want) {
		t.Errorf("Structured = %q, want %q", r.Structured, want)
	}

	r = describe(t, `{"content":[]}`)
	if r.IsError || len(r.Blocks) != 0 || r.Structured != nil {
		t.Errorf("empty content: got %#v", r)
	}

	r = describe(t, `{"structuredContent":[1,2]}`)
	if len(r.Blocks) != 0 || !reflect.DeepEqual(r.Structured, []string{"[", "  1,", "  2", "]"}) {
		t.Errorf("structured only: got %#v", r)
	}

	r = describe(t, `{"content":[{"type":"text","text":"x"}],"structuredContent":null}`)
	if r.Structured != nil {
		t.Errorf("null structuredContent: Structured = %q, want nil", r.Structured)
	}
}

// TestNotAToolResult: anything else is left to the caller.
func TestNotAToolResult(t *testing.T) {
	for _, raw := range []string{
		`{}`,
		`{"tools":[]}`,
		`{"content":null}`,
		`[]`,
		`"text"`,
		`null`,
		`{"content":"not a list"}`,
		`{"content":[{"type":"text","text":"cut`,
		`not json`,
		``,
	} {
		if r, ok := Describe(json.RawMessage(raw)); ok {
			t.Errorf("Describe(%q) = %#v, true; want false", raw, r)
		}
	}
}

// TestHostile: no control, escape or bidi character from the server gets
// through, wherever it hides.
func TestHostile(t *testing.T) {
	const evil = "x\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil"
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	raw := `{"content":[` +
		`{"type":"text","text":` + q(evil+"\nline2") + `},` +
		`{"type":"image","mimeType":` + q(evil) + `,"data":""},` +
		`{"type":"resource_link","name":` + q(evil) + `,"uri":` + q(evil) + `},` +
		`{"type":"resource","resource":{"uri":` + q(evil) + `,"mimeType":` + q(evil) + `,"text":` + q(evil) + `}},` +
		`{"type":` + q(evil) + `},` +
		// JSON may carry C1 controls and bidi overrides unescaped.
		"{\"type\":\"resource\",\"x\":\"\u009b2J\u202e\"}" +
		`],"structuredContent":{"k":"` + "\u009b2J\u202e" + `"}}`
	r := describe(t, raw)
	var all []string
	for _, b := range r.Blocks {
		all = append(all, b.Tag, b.Head)
		all = append(all, b.Lines...)
	}
	all = append(all, r.Structured...)
	for _, s := range all {
		for _, c := range s {
			if c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x202e {
				t.Errorf("unsafe %U in %q", c, s)
			}
		}
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{`x\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil`, `\u009b2J\u202e`} {
		if !strings.Contains(joined, want) {
			t.Errorf("escaped text %q missing from\n%s", want, joined)
		}
	}
	if got := r.Blocks[0].Lines; len(got) != 2 || got[1] != "line2" {
		t.Errorf("text keeps its lines: got %q", got)
	}
}

func TestHugeJSONIsCut(t *testing.T) {
	big := `{"type":"hologram","pad":"` + strings.Repeat("a", maxJSON) + `"}`
	r := describe(t, `{"content":[`+big+`]}`)
	lines := r.Blocks[0].Lines
	if len(lines) != 1 || !strings.HasSuffix(lines[0], "… (256.0 KB in all)") {
		t.Errorf("huge JSON: got %d lines, want one line, cut", len(lines))
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 1536: "1.5 KB", 3 << 20: "3.0 MB"} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

package toolschema

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	const schema = `{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args, want string
	}{
		{`{"text":"hi"}`, ""},
		{`{"text":"hi","seconds":1.5}`, ""},
		{`{"text":"hi","seconds":"1"}`, `argument "seconds": got string, want number`},
		{`{"seconds":-1}`, `arguments: missing property 'text'`},
		{`{"text":"x","bogus":1}`, `additional properties 'bogus' not allowed`},
		{`[1]`, `arguments: got array, want object`},
	} {
		err := s.Validate([]byte(tc.args))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want it to contain %q", tc.args, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: error spans lines: %q", tc.args, err)
		}
	}
}

func TestDraft07ThroughSchemaKeyword(t *testing.T) {
	// The reference TypeScript server emits draft-07 schemas.
	s, err := Compile([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`{}`)); err == nil {
		t.Fatal("missing message accepted")
	}
	if err := s.Validate([]byte(`{"message":"hi"}`)); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesToLoadReferences(t *testing.T) {
	for _, ref := range []string{"file:///etc/passwd", "https://example.com/s.json", "other.json"} {
		_, err := Compile([]byte(`{"$ref":"` + ref + `"}`))
		if err == nil {
			t.Errorf("$ref %s compiled; it must not be loaded", ref)
		}
	}
}

func TestCompileRejectsNonJSON(t *testing.T) {
	if _, err := Compile([]byte(`{`)); err == nil {
		t.Fatal("want error")
	}
}

func TestProblemsPlacedOnFields(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","required":["text","n"],"properties":{"text":{"type":"string"},"n":{"type":"integer"},"o":{"type":"object","properties":{"x":{"type":"string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Problems([]byte(`{"o":{"x":1}}`))
	want := map[string]string{"text": "required", "n": "required", "o": "at /x: got number, want string"}
	if len(got) != len(want) {
		t.Fatalf("problems %+v", got)
	}
	for _, p := range got {
		if want[p.Field] != p.Message {
			t.Errorf("field %q: %q, want %q", p.Field, p.Message, want[p.Field])
		}
	}
	if p := s.Problems([]byte(`{"text":"a","n":2}`)); p != nil {
		t.Errorf("valid arguments: %+v", p)
	}
}

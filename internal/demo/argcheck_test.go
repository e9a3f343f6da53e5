package demo

import (
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/internal/toolschema"
)

// Only flat schemas get a flatCheck; anything with a keyword that
// validates and that it does not read is left to the validator alone.
func TestCompileFlat(t *testing.T) {
	for _, tc := range []struct {
		schema string
		flat   bool
	}{
		{echoSchema, true},
		{failSchema, true},
		{`{"type":"object"}`, true},
		{`{"type":"object","properties":{"n":{"type":"integer"},"b":{"type":"boolean","default":true,"x-ui":1}},"required":["n"]}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, false},
		{`{"type":"object","properties":{"s":{"type":"string","minLength":1}}}`, false},
		{`{"type":"object","properties":{"s":{"type":"string","format":"email"}}}`, false},
		{`{"type":"object","properties":{"s":{"type":["string","null"]}}}`, false},
		{`{"type":"object","properties":{"s":{}}}`, false},
		{`{"type":"object","properties":{"s":true}}`, false},
		{`{"type":"object","properties":{"o":{"type":"object"}}}`, false},
		{`{"type":"object","properties":{"n":{"type":"number","enum":[1,2]}}}`, false},
		{`{"type":"object","properties":{"s":{"type":"string","enum":[]}}}`, false},
		{`{"type":"object","required":["missing"]}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{`{"type":"object","patternProperties":{"a":{}}}`, false},
		{`{"type":"array"}`, false},
		{`{"type":"object","$ref":"#/$defs/x","$defs":{"x":{}}}`, false},
		{`true`, false},
	} {
		if got := compileFlat([]byte(tc.schema)) != nil; got != tc.flat {
			t.Errorf("compileFlat(%s) != nil: %v, want %v", tc.schema, got, tc.flat)
		}
	}
	for _, tl := range preparedTools() {
		if tl.immediate != nil && tl.flat == nil {
			t.Errorf("%s answers at once but its schema has no flatCheck: it would never be", tl.Name)
		}
	}
}

// flatSchemas are the schemas the soundness checks use: the immediate
// tools' and one with every type flatCheck reads, open to others.
var flatSchemas = []string{echoSchema, failSchema,
	`{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"},"b":{"type":"boolean"},"z":{"type":"null"},"s":{"type":"string","enum":["a","b\u00e9"]}},"required":["i","s"]}`}

// flatCheck never passes arguments the validator refuses, and passes
// the plain valid ones.
func TestFlatCheckIsSound(t *testing.T) {
	for _, tc := range []struct {
		schema int
		args   string
		valid  bool // flatCheck is sure of them
	}{
		{0, `{"text":"x"}`, true},
		{0, ` { "text" : "" } `, true},
		{0, `{"text":"a\"b\\u00e9"}`, true},
		{0, `{}`, false},
		{0, `{"text":1}`, false},
		{0, `{"text":"x","y":1}`, false},
		{0, `{"text":"x","text":"y"}`, false},
		{0, `{"te\u0078t":"x"}`, false},
		{0, `["text"]`, false},
		{0, `"text"`, false},
		{0, `null`, false},
		{1, `{}`, true},
		{1, `{"mode":"rpc-error"}`, true},
		{1, `{"mode":"tool-error"}`, true},
		{1, `{"mode":"rpc\u002derror"}`, false},
		{1, `{"mode":"other"}`, false},
		{1, `{"mode":null}`, false},
		{2, `{"i":1,"s":"a"}`, true},
		{2, `{"i":-3,"s":"bé","n":1.5e3,"b":false,"z":null,"other":{"i":"x"}}`, true},
		{2, `{"i":1.0,"s":"a"}`, false},
		{2, `{"i":1e2,"s":"a"}`, false},
		{2, `{"i":"1","s":"a"}`, false},
		{2, `{"i":1,"s":"b\u00e9"}`, false},
		{2, `{"i":1,"s":"c"}`, false},
		{2, `{"i":1,"s":"a","b":"true"}`, false},
		{2, `{"i":1,"s":"a","z":0}`, false},
		{2, "{\"i\":1,\"s\":\"a\",\"\xff\":1}", false},
	} {
		schema := []byte(flatSchemas[tc.schema])
		f, compiled := compileFlat(schema), mustCompile(t, schema)
		if !json.Valid([]byte(tc.args)) {
			t.Fatalf("not JSON: %s", tc.args)
		}
		got := f.valid([]byte(tc.args))
		if got != tc.valid {
			t.Errorf("schema %d: valid(%s) = %v, want %v", tc.schema, tc.args, got, tc.valid)
		}
		if err := compiled.Validate([]byte(tc.args)); got && err != nil {
			t.Errorf("schema %d: flatCheck passed %s, which the validator refuses: %v", tc.schema, tc.args, err)
		}
	}
}

// FuzzFlatCheck looks for arguments flatCheck passes and the validator
// refuses.
func FuzzFlatCheck(f *testing.F) {
	for _, s := range []string{`{"text":"x"}`, `{"mode":"rpc-error"}`, `{"i":1,"s":"a","n":-0.5,"b":true,"z":null}`, `{}`} {
		f.Add(s)
	}
	checks := make([]*flatCheck, len(flatSchemas))
	schemas := make([]*toolschema.Schema, len(flatSchemas))
	for i, s := range flatSchemas {
		checks[i], schemas[i] = compileFlat([]byte(s)), mustCompile(f, []byte(s))
	}
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) {
			return // the session hands on valid JSON only
		}
		for i := range checks {
			if checks[i].valid([]byte(args)) {
				if err := schemas[i].Validate([]byte(args)); err != nil {
					t.Fatalf("schema %d: flatCheck passed %q, which the validator refuses: %v", i, args, err)
				}
			}
		}
	})
}

func mustCompile(t testing.TB, schema []byte) *toolschema.Schema {
	t.Helper()
	s, err := toolschema.Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{"progressToken":8},"name":"echo","arguments":{"text":"hello"}}}`,
	`[1,-2.5e+3,0,-0,1E9,"a\"b\\c\/\b\f\n\r\t\u00e9",true,false,null,{},[],{"a":[{}]}]`,
	` {"a" : 1 , "b":[ 1 , 2 ] } `, "\t\r\n[]\n", `""`, `0`, `-`, `01`, `1.`, `.5`, `1e`, `1e+`, `--1`, `+1`,
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":1]`, `[1}`, `"\x"`, `"\u12G4"`,
	"\"a\x01b\"", "\"\xff\xfe\"", `tru`, `nul`, `falsey`, `nulll`, `{} {}`, `[`, `]`, `}`, `{"a":{"b":[`, ``, ` `,
	strings.Repeat("[", 64) + strings.Repeat("]", 64), strings.Repeat("[", 65) + strings.Repeat("]", 65),
	strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 70) + strings.Repeat("]", 69),
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.80q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func FuzzValidAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	frame := []byte(validSeeds[0])
	for b.Loop() {
		Valid(frame)
	}
}

func BenchmarkValidByEncodingJSON(b *testing.B) {
	frame := []byte(validSeeds[0])
	for b.Loop() {
		json.Valid(frame)
	}
}
